#include "SpecwebFileSize.h"

#include <cstdlib>

namespace satsweep {
namespace goyal98 {

std::vector<double> parseClassProbabilities(const char *text)
{
    std::vector<double> result;
    omnetpp::cStringTokenizer tokenizer(text, " ,");
    while (tokenizer.hasMoreTokens()) {
        const char *token = tokenizer.nextToken();
        char *end = nullptr;
        const double p = std::strtod(token, &end);
        if (end == token || *end != '\0' || !(p >= 0 && p <= 1))
            throw omnetpp::cRuntimeError("bad class probability \"%s\" in \"%s\"", token, text);
        result.push_back(p);
    }
    return result;
}

uint64_t drawFileSize(const SpecwebSizeDistribution& sizes, omnetpp::cRNG *rng)
{
    const uint32_t fileClass = sizes.ClassFor(rng->doubleRand());
    const uint32_t index = sizes.IndexFor(rng->doubleRand());
    return sizes.Size(fileClass, index);
}

} // namespace goyal98
} // namespace satsweep
