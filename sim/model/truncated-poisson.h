/*
 * A Poisson distribution kept within [min, max], sampled by inverting its CDF. Plain C++ (no
 * ns-3): the OMNeT++ model (omnetpp/goyal98/) draws its WWW load with the same code; each engine
 * feeds it one U[0,1) draw of its own generator. Bad input throws std::invalid_argument.
 */
#ifndef SATNET_TRUNCATED_POISSON_H
#define SATNET_TRUNCATED_POISSON_H

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief Poisson(mean) kept within [min, max], in one of two readings (Bounds).
 *
 * REDRAW (redraw until inside) is the conditional distribution
 * P(k) = Poisson(k; mean) / P(min <= K <= max). CLAMP puts the mass outside on the nearer
 * bound: P(min) = P(K <= min), P(max) = P(K >= max), Poisson inside (for mean 5 in [1, 9]:
 * 0.7% extra on 1, 3.2% extra on 9; mean 4.953 against REDRAW's 4.846). Either is sampled by
 * inverting its CDF with one U[0,1) draw (Quantile), so a value costs exactly one draw and runs
 * stay aligned whatever the values.
 *
 * The weights are built by the recurrence w_k = w_{k-1} mean / k, so mean must stay moderate
 * (well below 700) to keep them finite.
 */
class TruncatedPoisson
{
  public:
    /// How values outside [min, max] are kept within.
    enum Bounds
    {
        REDRAW, //!< drawn again: the distribution conditioned on [min, max]
        CLAMP,  //!< moved to the nearer bound
    };

    /**
     * @brief Unnormalised weights of k = min..max: the Poisson weights mean^k / k! (e^-mean
     * cancels out); with CLAMP, min's weight also holds those below it and max's those above it
     * (the weights of all k sum to e^mean).
     */
    static std::vector<double> Weights(double mean, uint32_t min, uint32_t max, Bounds bounds)
    {
        if (!(mean > 0))
        {
            throw std::invalid_argument("Poisson mean must be positive, got " +
                                        std::to_string(mean));
        }
        if (min > max)
        {
            throw std::invalid_argument("empty range [" + std::to_string(min) + ", " +
                                        std::to_string(max) + "]");
        }
        const bool clamp = bounds == CLAMP;
        std::vector<double> weights;
        weights.reserve(max - min + 1);
        double w = 1.0;     // k = 0
        double below = 0.0; // weights of 0..k-1
        for (uint32_t k = 0; k <= max; ++k)
        {
            if (k > 0)
            {
                w *= mean / k;
            }
            if (k == min && clamp)
            {
                weights.push_back(below + w);
            }
            else if (k >= min)
            {
                weights.push_back(w);
            }
            below += w;
        }
        if (clamp && max > min)
        {
            weights.back() = std::exp(mean) - (below - w); // P(K >= max), unnormalised
        }
        else if (clamp)
        {
            weights.back() = std::exp(mean); // min == max: everything
        }
        return weights;
    }

    /// @param u a U[0,1) draw @return the value the inverse CDF gives for @p u, in [min, max]
    static uint32_t Quantile(double u, double mean, uint32_t min, uint32_t max, Bounds bounds)
    {
        const std::vector<double> weights = Weights(mean, min, max, bounds);
        const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
        if (!std::isfinite(total) || total <= 0)
        {
            throw std::invalid_argument("Poisson weights out of range for mean " +
                                        std::to_string(mean));
        }
        double target = u * total;
        for (std::size_t i = 0; i + 1 < weights.size(); ++i)
        {
            if (target < weights[i])
            {
                return min + i;
            }
            target -= weights[i];
        }
        // Rounding may leave a sliver of u beyond the last weight: it belongs to max.
        return max;
    }

    /// @return P(K = k) of the values drawn
    static double Probability(uint32_t k, double mean, uint32_t min, uint32_t max, Bounds bounds)
    {
        if (k < min || k > max)
        {
            return 0.0;
        }
        const std::vector<double> weights = Weights(mean, min, max, bounds);
        return weights[k - min] / std::accumulate(weights.begin(), weights.end(), 0.0);
    }

    /// @return E[K] of the values drawn
    static double ExpectedValue(double mean, uint32_t min, uint32_t max, Bounds bounds)
    {
        double expected = 0;
        for (uint32_t k = min; k <= max; ++k)
        {
            expected += k * Probability(k, mean, min, max, bounds);
        }
        return expected;
    }
};

} // namespace ns3

#endif /* SATNET_TRUNCATED_POISSON_H */
