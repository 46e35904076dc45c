#include "TruncatedPoisson.h"

#include <cmath>
#include <numeric>

namespace satsweep {
namespace goyal98 {

using omnetpp::cRuntimeError;

TruncatedPoisson::Bounds TruncatedPoisson::parseBounds(const std::string& name)
{
    if (name == "redraw")
        return REDRAW;
    if (name == "clamp")
        return CLAMP;
    throw cRuntimeError("poissonBounds must be \"redraw\" or \"clamp\", got \"%s\"", name.c_str());
}

const char *TruncatedPoisson::boundsName(Bounds bounds)
{
    return bounds == CLAMP ? "clamp" : "redraw";
}

std::vector<double> TruncatedPoisson::weights(double mean, uint32_t min, uint32_t max, Bounds bounds)
{
    // The same construction as sim/model/truncated-poisson-random-variable.cc's Weights().
    if (!(mean > 0))
        throw cRuntimeError("Poisson mean must be positive, got %g", mean);
    if (min > max)
        throw cRuntimeError("empty range [%u, %u]", min, max);
    const bool clamp = bounds == CLAMP;
    std::vector<double> w;
    w.reserve(max - min + 1);
    double wk = 1.0;    // k = 0
    double below = 0.0; // weights of 0..k-1
    for (uint32_t k = 0; k <= max; ++k) {
        if (k > 0)
            wk *= mean / k;
        if (k == min && clamp)
            w.push_back(below + wk);
        else if (k >= min)
            w.push_back(wk);
        below += wk;
    }
    if (clamp && max > min)
        w.back() = std::exp(mean) - (below - wk); // P(K >= max), unnormalised
    else if (clamp)
        w.back() = std::exp(mean); // min == max: everything
    return w;
}

uint32_t TruncatedPoisson::quantile(double u, double mean, uint32_t min, uint32_t max, Bounds bounds)
{
    const std::vector<double> w = weights(mean, min, max, bounds);
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    if (!std::isfinite(total) || total <= 0)
        throw cRuntimeError("Poisson weights out of range for mean %g", mean);
    double target = u * total;
    for (std::size_t i = 0; i + 1 < w.size(); ++i) {
        if (target < w[i])
            return min + i;
        target -= w[i];
    }
    // Rounding may leave a sliver of u beyond the last weight: it belongs to max.
    return max;
}

uint32_t TruncatedPoisson::draw(omnetpp::cRNG *rng, double mean, uint32_t min, uint32_t max, Bounds bounds)
{
    return quantile(rng->doubleRand(), mean, min, max, bounds);
}

double TruncatedPoisson::probability(uint32_t k, double mean, uint32_t min, uint32_t max, Bounds bounds)
{
    if (k < min || k > max)
        return 0.0;
    const std::vector<double> w = weights(mean, min, max, bounds);
    return w[k - min] / std::accumulate(w.begin(), w.end(), 0.0);
}

double TruncatedPoisson::expectedValue(double mean, uint32_t min, uint32_t max, Bounds bounds)
{
    double expected = 0;
    for (uint32_t k = min; k <= max; ++k)
        expected += k * probability(k, mean, min, max, bounds);
    return expected;
}

} // namespace goyal98
} // namespace satsweep
