/*
 * The file sizes of the modified SPECweb96 workload. Plain C++ (no ns-3): the OMNeT++ model
 * (omnetpp/goyal98/) draws its files with the same code; each engine feeds it U[0,1) draws of
 * its own generator. Bad input throws std::invalid_argument.
 */
#ifndef SATNET_SPECWEB_SIZE_DISTRIBUTION_H
#define SATNET_SPECWEB_SIZE_DISTRIBUTION_H

#include "model/truncated-poisson.h"

#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief The size of a file requested from a WWW server (modified SPECweb96).
 *
 * A file belongs to class c (c = 0, 1, ...) with probability classProbabilities[c]; class c holds
 * nine sizes j x 10^(c-1) KB, j = 1..9, and j is Poisson(indexMean) kept within 1..9 by
 * @c bounds (TruncatedPoisson). With the defaults the classes span 0.1-0.9 KB, 1-9 KB, 10-90 KB,
 * 100-900 KB and 1-9 MB and the mean file is about 118 KiB.
 *
 * A KB is kiloByte bytes, 1024 by default: the study's documents do not say, and SPECweb96
 * itself builds its classes from 1024 B (its class 0 files are multiples of 102.4 B). Class 0
 * sizes are then not whole bytes and are rounded half up to whole bytes (102, 205, ..., 922 B).
 *
 * A file takes two U[0,1) draws: its class (ClassFor), then j (IndexFor).
 */
struct SpecwebSizeDistribution
{
    static constexpr uint32_t kMinIndex = 1; //!< smallest size index j within a class
    static constexpr uint32_t kMaxIndex = 9; //!< largest size index j within a class
    /// The largest file: a single file beyond 1 GiB makes TCP's 32-bit sequence space awkward.
    static constexpr uint64_t kMaxBytes = uint64_t{1} << 30;

    std::vector<double> classProbabilities{0.20, 0.28, 0.40, 0.112, 0.008}; //!< of each class
    uint32_t kiloByte{1024};                                                //!< bytes in a KB
    double indexMean{5.0}; //!< Poisson mean of the size index j
    TruncatedPoisson::Bounds bounds{TruncatedPoisson::CLAMP}; //!< how j is kept within 1..9

    /// Throws unless the class probabilities form a distribution, kiloByte is at least 1 and
    /// every file is within kMaxBytes.
    void Check() const
    {
        if (classProbabilities.empty())
        {
            throw std::invalid_argument("no file classes");
        }
        const double total =
            std::accumulate(classProbabilities.begin(), classProbabilities.end(), 0.0);
        if (std::abs(total - 1.0) > 1e-9)
        {
            throw std::invalid_argument("class probabilities sum to " + std::to_string(total) +
                                        ", not 1");
        }
        if (kiloByte < 1)
        {
            throw std::invalid_argument("kiloByte must be at least 1");
        }
        for (uint32_t c = 0; c < classProbabilities.size(); ++c)
        {
            Size(c, kMaxIndex); // throws if the class's largest file is beyond kMaxBytes
        }
    }

    /// @param u a U[0,1) draw @return the class the inverse CDF gives for @p u
    uint32_t ClassFor(double u) const
    {
        uint32_t fileClass = 0;
        double cumulative = classProbabilities[0];
        // A u beyond the rounded total falls in the last class.
        while (u >= cumulative && fileClass + 1 < classProbabilities.size())
        {
            ++fileClass;
            cumulative += classProbabilities[fileClass];
        }
        return fileClass;
    }

    /// @param u a U[0,1) draw @return the size index j the inverse CDF gives for @p u
    uint32_t IndexFor(double u) const
    {
        return TruncatedPoisson::Quantile(u, indexMean, kMinIndex, kMaxIndex, bounds);
    }

    /**
     * @param fileClass class c
     * @param index size index j in [1, 9]
     * @return j x 10^(c-1) KB in bytes, rounded half up to a whole byte (throws beyond kMaxBytes)
     */
    uint64_t Size(uint32_t fileClass, uint32_t index) const
    {
        if (index < kMinIndex || index > kMaxIndex)
        {
            throw std::invalid_argument("size index out of range: " + std::to_string(index));
        }
        // j x KB x 10^c / 10 in integers, rounded half up.
        uint64_t tenths = static_cast<uint64_t>(index) * kiloByte;
        for (uint32_t c = 0; c < fileClass && tenths <= 10 * kMaxBytes; ++c)
        {
            tenths *= 10;
        }
        const uint64_t bytes = (tenths + 5) / 10;
        if (bytes > kMaxBytes)
        {
            throw std::invalid_argument("file of class " + std::to_string(fileClass) +
                                        " is beyond 1 GiB");
        }
        return bytes;
    }

    /// @return the analytic mean file size in bytes (of the rounded sizes)
    double Mean() const
    {
        double mean = 0;
        for (uint32_t c = 0; c < classProbabilities.size(); ++c)
        {
            for (uint32_t j = kMinIndex; j <= kMaxIndex; ++j)
            {
                mean += classProbabilities[c] *
                        TruncatedPoisson::Probability(j, indexMean, kMinIndex, kMaxIndex, bounds) *
                        Size(c, j);
            }
        }
        return mean;
    }
};

} // namespace ns3

#endif /* SATNET_SPECWEB_SIZE_DISTRIBUTION_H */
