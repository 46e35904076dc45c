/*
 * A Poisson random variable kept within [Min, Max]: ns-3 ships no Poisson variable. The
 * distribution is the plain-C++ TruncatedPoisson, shared with the OMNeT++ model; this class
 * feeds it the draws of an ns-3 stream.
 */
#ifndef SATNET_TRUNCATED_POISSON_RANDOM_VARIABLE_H
#define SATNET_TRUNCATED_POISSON_RANDOM_VARIABLE_H

#include "model/truncated-poisson.h"

#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief TruncatedPoisson (model/truncated-poisson.h) with Mean, Min, Max and Bounds as
 * attributes: each value inverts its CDF with one U(0,1) draw of the stream (the same draw
 * UniformRandomVariable makes, antithetic if asked).
 */
class TruncatedPoissonRandomVariable : public RandomVariableStream
{
  public:
    /// How values outside [Min, Max] are kept within.
    using Bounds = TruncatedPoisson::Bounds;

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
     * @brief Draw with explicit parameters (Mean, Min and Max ignored; Bounds applies).
     * @param mean mean of the untruncated Poisson distribution
     * @param min smallest value drawn
     * @param max largest value drawn
     * @return a value in [min, max]
     */
    uint32_t GetInteger(double mean, uint32_t min, uint32_t max);

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
