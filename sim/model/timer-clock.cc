#include "model/timer-clock.h"

#include "ns3/abort.h"

namespace ns3
{

std::optional<TimerClock>
ParseTimerClock(const std::string& name)
{
    for (TimerClock c : {TimerClock::PER_CONNECTION, TimerClock::SHARED})
    {
        if (ToString(c) == name)
        {
            return c;
        }
    }
    return std::nullopt;
}

std::string
ToString(TimerClock clock)
{
    return clock == TimerClock::SHARED ? "shared" : "perConnection";
}

Ptr<const AttributeChecker>
MakeTimerClockChecker()
{
    return MakeEnumChecker(TimerClock::PER_CONNECTION,
                           "perConnection",
                           TimerClock::SHARED,
                           "shared");
}

Time
SharedClockExpiry(Time expiry, Time tick)
{
    const int64_t step = tick.GetTimeStep();
    const int64_t at = expiry.GetTimeStep();
    NS_ABORT_MSG_IF(step <= 0 || at < 0, "shared clock: tick " << tick << ", expiry " << expiry);
    // Rounded up in whole time steps: no floating point, so a timer already on a tick stays.
    const int64_t ticks = at / step + (at % step != 0 ? 1 : 0);
    return TimeStep(ticks * step);
}

} // namespace ns3
