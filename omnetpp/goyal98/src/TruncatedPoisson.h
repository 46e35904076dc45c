/*
 * A Poisson draw kept within [min, max]: the twin of the ns-3 model's
 * TruncatedPoissonRandomVariable (sim/model/truncated-poisson-random-variable.h).
 */
#ifndef SATSWEEP_GOYAL98_TRUNCATEDPOISSON_H
#define SATSWEEP_GOYAL98_TRUNCATEDPOISSON_H

#include <omnetpp.h>

#include <cstdint>
#include <string>
#include <vector>

namespace satsweep {
namespace goyal98 {

/**
 * Poisson(mean) kept within [min, max], in one of two readings (Bounds).
 *
 * REDRAW (redraw until inside) is the conditional distribution
 * P(k) = Poisson(k; mean) / P(min <= K <= max). CLAMP puts the mass outside on the nearer
 * bound: P(min) = P(K <= min), P(max) = P(K >= max), Poisson inside (for mean 5 in [1, 9]:
 * mean 4.953 against REDRAW's 4.846). Either is sampled by inverting its CDF with one U[0,1)
 * draw of the given RNG, exactly as the ns-3 class does, so a value costs one draw whatever it is.
 *
 * The weights come from the recurrence w_k = w_{k-1} mean / k: keep mean moderate (well below
 * 700) so that they stay finite.
 */
class TruncatedPoisson
{
  public:
    /// How values outside [min, max] are kept within.
    enum Bounds {
        REDRAW, ///< drawn again: the distribution conditioned on [min, max]
        CLAMP,  ///< moved to the nearer bound
    };

    /// @return the Bounds named @p name ("redraw" or "clamp"); throws cRuntimeError otherwise
    static Bounds parseBounds(const std::string& name);
    /// @return "redraw" or "clamp"
    static const char *boundsName(Bounds bounds);

    /**
     * @brief Draw a value with one U[0,1) draw of @p rng.
     * @return a value in [min, max]
     */
    static uint32_t draw(omnetpp::cRNG *rng, double mean, uint32_t min, uint32_t max, Bounds bounds);

    /// @return the value the inverse CDF gives for @p u in [0, 1)
    static uint32_t quantile(double u, double mean, uint32_t min, uint32_t max, Bounds bounds);

    /// @return P(K = k) under the truncated distribution
    static double probability(uint32_t k, double mean, uint32_t min, uint32_t max, Bounds bounds);

    /// @return E[K] under the truncated distribution
    static double expectedValue(double mean, uint32_t min, uint32_t max, Bounds bounds);

  private:
    /// Unnormalised weights of k = min..max (see the ns-3 class).
    static std::vector<double> weights(double mean, uint32_t min, uint32_t max, Bounds bounds);
};

} // namespace goyal98
} // namespace satsweep

#endif
