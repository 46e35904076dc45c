/*
 * Which clock the TCP retransmission timers of the study's sockets run on.
 */
#ifndef SATNET_TIMER_CLOCK_H
#define SATNET_TIMER_CLOCK_H

#include "ns3/enum.h"
#include "ns3/nstime.h"

#include <optional>
#include <string>

namespace ns3
{

/**
 * @brief The clock a retransmission timer expires on.
 *
 * Two readings of the study's "100 ms timer granularity". Either way the RTO itself is whole
 * ticks (the sender's estimator); what differs is when a timer set now with that RTO fires.
 */
enum class TimerClock
{
    /// Each connection's own clock: the timer fires exactly RTO after it was set (ns-2's
    /// agents: every timer is an event of its own).
    PER_CONNECTION,
    /// One clock for all connections, ticking at the granularity from time 0 of the
    /// simulation: the timer fires on the first tick at or after now + RTO (BSD-derived TCPs,
    /// whose slow timer decrements every connection's retransmission timer on the same tick).
    SHARED,
};

/**
 * @param name "perConnection" or "shared"
 * @return the clock, or std::nullopt for any other name
 */
std::optional<TimerClock> ParseTimerClock(const std::string& name);

/**
 * @param clock a clock
 * @return its name: "perConnection" or "shared"
 */
std::string ToString(TimerClock clock);

/// @return the attribute checker of a TimerClock EnumValue, with the names above
Ptr<const AttributeChecker> MakeTimerClockChecker();

/**
 * @param expiry when a timer would fire on its own clock (an absolute simulation time, >= 0)
 * @param tick the shared clock's period (> 0)
 * @return the first multiple of @p tick at or after @p expiry: when it fires on the shared clock
 */
Time SharedClockExpiry(Time expiry, Time tick);

} // namespace ns3

#endif // SATNET_TIMER_CLOCK_H
