/*
 * File sizes of the modified SPECweb96 workload: the twin of the ns-3 model's SpecwebFileSize
 * (sim/model/specweb-file-size.h).
 */
#ifndef SATSWEEP_GOYAL98_SPECWEBFILESIZE_H
#define SATSWEEP_GOYAL98_SPECWEBFILESIZE_H

#include "TruncatedPoisson.h"

#include <omnetpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace satsweep {
namespace goyal98 {

/**
 * Draws the size of a file requested from a WWW server (modified SPECweb96).
 *
 * A file belongs to class c (c = 0, 1, ...) with probability classProbabilities[c]; class c
 * holds nine sizes j x 10^(c-1) KB, j = 1..9, and j is Poisson(indexMean) kept within 1..9 by
 * the given Bounds. A KB is kiloByte bytes (1024 by default, as in the ns-3 model); class 0
 * sizes are rounded half up to whole bytes (102, 205, ..., 922 B).
 *
 * Each draw takes two U[0,1) draws of the RNG: the class, then j (as the ns-3 class does with
 * its two streams).
 */
class SpecwebFileSize
{
  public:
    static constexpr uint32_t kMinIndex = 1; ///< smallest size index j within a class
    static constexpr uint32_t kMaxIndex = 9; ///< largest size index j within a class

    /// The defaults: 0.20/0.28/0.40/0.112/0.008, 1024 B per KB, Poisson(5), clamp.
    SpecwebFileSize();

    /**
     * @param classProbabilities probability of each class; must sum to 1
     * @param kiloByte bytes in a KB
     * @param indexMean Poisson mean of j
     * @param bounds how j is kept within 1..9
     */
    SpecwebFileSize(std::vector<double> classProbabilities, uint32_t kiloByte, double indexMean,
                    TruncatedPoisson::Bounds bounds);

    /// @return the class probabilities parsed from a list of numbers separated by spaces or commas
    static std::vector<double> parseProbabilities(const char *text);

    /// @return a file size in bytes (two draws of @p rng)
    uint64_t draw(omnetpp::cRNG *rng) const;

    /// @return the class the inverse CDF gives for @p u in [0, 1)
    uint32_t classFor(double u) const;

    /// @return j x 10^(c-1) KB in bytes, rounded half up to a whole byte
    uint64_t size(uint32_t fileClass, uint32_t index) const;

    /// @return the analytic mean file size in bytes (of the rounded sizes)
    double mean() const;

    /// @return the number of classes
    uint32_t classCount() const { return classProbabilities.size(); }

  private:
    /// Throws unless the class probabilities form a distribution.
    void check() const;

    std::vector<double> classProbabilities; ///< probability of each class
    uint32_t kiloByte;                      ///< bytes in a KB
    double indexMean;                       ///< Poisson mean of the size index j
    TruncatedPoisson::Bounds bounds;        ///< how j is kept within 1..9
};

} // namespace goyal98
} // namespace satsweep

#endif
