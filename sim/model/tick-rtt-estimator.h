/*
 * An RTT estimator that counts in coarse timer ticks, like ns-2's TCP agent.
 */
#ifndef SATNET_TICK_RTT_ESTIMATOR_H
#define SATNET_TICK_RTT_ESTIMATOR_H

#include "ns3/nstime.h"
#include "ns3/rtt-estimator.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Jacobson/Karels estimator in whole timer ticks (ns-2's coarse TCP timer).
 *
 * Each sample is rounded up to whole ticks, at least one: n = max(1, ceil(rtt / Tick)).
 * The state is ns-2's (and 4.3BSD's) fixed point: srtt in 1/8 tick, rttvar in 1/4 tick.
 * The first sample sets srtt = n, rttvar = n / 2; later ones do
 * delta = n - floor(srtt); srtt += delta / 8; rttvar += (|delta| - floor(rttvar)) / 4
 * (in the fixed-point units, so every step is an integer), each kept >= 1 unit.
 *
 * TcpSocketBase computes rto = max(MinRto, GetEstimate() + max(ClockGranularity,
 * 4 * GetVariation())). To make that ns-2's rto = floor(srtt + 4 rttvar) ticks, GetEstimate()
 * reports srtt truncated to whole ticks and GetVariation() reports rttvar exactly (a multiple
 * of 1/4 tick, so 4 * rttvar is whole ticks and at least one). With ClockGranularity <= Tick
 * and MinRto a multiple of Tick, every RTO is then a whole number of ticks, and so is every
 * doubled RTO after a timeout. Before the first sample the base class's InitialEstimation is
 * reported with zero variation.
 */
class TickRttEstimator : public RttEstimator
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TickRttEstimator();
    /// @param other estimator to copy, state included
    TickRttEstimator(const TickRttEstimator& other);

    void Measurement(Time measure) override;
    Ptr<RttEstimator> Copy() const override;
    void Reset() override;

    /**
     * @param measure an RTT sample
     * @return the sample in whole ticks, rounded up, at least one (64 bits: a 1 ns tick counts
     *         samples of up to 292 years)
     */
    int64_t ToTicks(Time measure) const;

  private:
    /// Publishes the fixed-point state as m_estimatedRtt / m_estimatedVariation.
    void UpdateEstimates();

    Time m_tick;              ///< timer tick
    int64_t m_srtt8{0};       ///< smoothed RTT in 1/8 tick; 0 before the first sample
    int64_t m_rttvar4{0};     ///< RTT variation in 1/4 tick
};

} // namespace ns3

#endif // SATNET_TICK_RTT_ESTIMATOR_H
