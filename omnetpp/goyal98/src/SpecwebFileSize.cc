#include "SpecwebFileSize.h"

#include <cmath>
#include <cstdlib>
#include <numeric>

namespace satsweep {
namespace goyal98 {

using omnetpp::cRuntimeError;

SpecwebFileSize::SpecwebFileSize()
    : SpecwebFileSize({0.20, 0.28, 0.40, 0.112, 0.008}, 1024, 5.0, TruncatedPoisson::CLAMP)
{
}

SpecwebFileSize::SpecwebFileSize(std::vector<double> classProbabilities, uint32_t kiloByte,
                                 double indexMean, TruncatedPoisson::Bounds bounds)
    : classProbabilities(std::move(classProbabilities)), kiloByte(kiloByte), indexMean(indexMean),
      bounds(bounds)
{
    if (kiloByte < 1)
        throw cRuntimeError("kiloByte must be at least 1");
    check();
    // Every size must fit: 9 x 10^(c-1) KB for the last class.
    for (uint32_t c = 0; c < classCount(); ++c)
        size(c, kMaxIndex);
}

std::vector<double> SpecwebFileSize::parseProbabilities(const char *text)
{
    std::vector<double> result;
    omnetpp::cStringTokenizer tokenizer(text, " ,");
    while (tokenizer.hasMoreTokens()) {
        const char *token = tokenizer.nextToken();
        char *end = nullptr;
        const double p = std::strtod(token, &end);
        if (end == token || *end != '\0' || !(p >= 0 && p <= 1))
            throw cRuntimeError("bad class probability \"%s\" in \"%s\"", token, text);
        result.push_back(p);
    }
    return result;
}

void SpecwebFileSize::check() const
{
    if (classProbabilities.empty())
        throw cRuntimeError("no file classes");
    const double total = std::accumulate(classProbabilities.begin(), classProbabilities.end(), 0.0);
    if (std::abs(total - 1.0) > 1e-9)
        throw cRuntimeError("class probabilities sum to %.12g, not 1", total);
}

uint32_t SpecwebFileSize::classFor(double u) const
{
    // As sim/model/specweb-file-size.cc: a u beyond the rounded total falls in the last class.
    uint32_t fileClass = 0;
    double cumulative = classProbabilities[0];
    while (u >= cumulative && fileClass + 1 < classProbabilities.size()) {
        ++fileClass;
        cumulative += classProbabilities[fileClass];
    }
    return fileClass;
}

uint64_t SpecwebFileSize::draw(omnetpp::cRNG *rng) const
{
    const uint32_t fileClass = classFor(rng->doubleRand());
    const uint32_t index = TruncatedPoisson::draw(rng, indexMean, kMinIndex, kMaxIndex, bounds);
    return size(fileClass, index);
}

uint64_t SpecwebFileSize::size(uint32_t fileClass, uint32_t index) const
{
    if (index < kMinIndex || index > kMaxIndex)
        throw cRuntimeError("size index out of range: %u", index);
    // j x KB x 10^c / 10 in integers, rounded half up.
    uint64_t tenths = static_cast<uint64_t>(index) * kiloByte;
    for (uint32_t c = 0; c < fileClass; ++c) {
        if (tenths > UINT64_MAX / 10)
            throw cRuntimeError("file size overflows: class %u", fileClass);
        tenths *= 10;
    }
    const uint64_t bytes = (tenths + 5) / 10;
    // A single file larger than 1 GiB would make TCP's 32-bit sequence space awkward.
    if (bytes > (uint64_t{1} << 30))
        throw cRuntimeError("file of %llu B in class %u is beyond 1 GiB", (unsigned long long)bytes, fileClass);
    return bytes;
}

double SpecwebFileSize::mean() const
{
    double m = 0;
    for (uint32_t c = 0; c < classCount(); ++c)
        for (uint32_t j = kMinIndex; j <= kMaxIndex; ++j)
            m += classProbabilities[c] * TruncatedPoisson::probability(j, indexMean, kMinIndex, kMaxIndex, bounds) * size(c, j);
    return m;
}

} // namespace goyal98
} // namespace satsweep
