/*
 * A Poisson random variable kept within [Min, Max]: ns-3 ships no Poisson variable.
 */
#ifndef SATNET_TRUNCATED_POISSON_RANDOM_VARIABLE_H
#define SATNET_TRUNCATED_POISSON_RANDOM_VARIABLE_H

#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Poisson(Mean) kept within [Min, Max], in one of two readings (Bounds).
 *
 * REDRAW (redraw until inside) is the conditional distribution
 * P(k) = Poisson(k; Mean) / P(Min <= K <= Max). CLAMP puts the mass outside on the nearer
 * bound: P(Min) = P(K <= Min), P(Max) = P(K >= Max), Poisson inside (for Mean 5 in [1, 9]:
 * 0.7% extra on 1, 3.2% extra on 9; mean 4.953 against REDRAW's 4.846). Either is sampled by
 * inverting its CDF with one U(0,1) draw of the stream (the same draw UniformRandomVariable
 * makes), so a value costs exactly one draw and runs stay aligned whatever the values.
 *
 * The weights are built by the recurrence w_k = w_{k-1} Mean / k, so Mean must stay moderate
 * (well below 700) to keep them finite.
 */
class TruncatedPoissonRandomVariable : public RandomVariableStream
{
  public:
    /// How values outside [Min, Max] are kept within.
    enum Bounds
    {
        REDRAW, //!< drawn again: the distribution conditioned on [Min, Max]
        CLAMP,  //!< moved to the nearer bound
    };

    /// @return the object TypeId
    static TypeId GetTypeId();

    TruncatedPoissonRandomVariable();

    /// @return the mean of the untruncated Poisson distribution
    double GetMean() const;
    /// @return the smallest value drawn
    uint32_t GetMin() const;
    /// @return the largest value drawn
    uint32_t GetMax() const;
    /// @return how values outside [Min, Max] are kept within
    Bounds GetBounds() const;

    /**
     * @brief Draw with explicit parameters (the attributes are ignored).
     * @param mean mean of the untruncated Poisson distribution
     * @param min smallest value drawn
     * @param max largest value drawn
     * @return a value in [min, max]
     */
    uint32_t GetInteger(double mean, uint32_t min, uint32_t max);

    /**
     * @brief Probability of @p k under the truncated distribution.
     * @param k the value
     * @param mean mean of the untruncated Poisson distribution
     * @param min smallest value drawn
     * @param max largest value drawn
     * @param bounds how values outside [min, max] are kept within
     * @return P(K = k) of the values drawn
     */
    static double Probability(uint32_t k,
                              double mean,
                              uint32_t min,
                              uint32_t max,
                              Bounds bounds = REDRAW);

    /**
     * @brief Expected value of the truncated distribution.
     * @param mean mean of the untruncated Poisson distribution
     * @param min smallest value drawn
     * @param max largest value drawn
     * @param bounds how values outside [min, max] are kept within
     * @return E[K] of the values drawn
     */
    static double ExpectedValue(double mean, uint32_t min, uint32_t max, Bounds bounds = REDRAW);

    double GetValue() override;
    uint32_t GetInteger() override;

  private:
    double m_mean;  //!< mean of the untruncated Poisson distribution
    uint32_t m_min; //!< smallest value drawn
    uint32_t m_max; //!< largest value drawn
    Bounds m_bounds; //!< how values outside [m_min, m_max] are kept within
};

} // namespace ns3

#endif /* SATNET_TRUNCATED_POISSON_RANDOM_VARIABLE_H */
