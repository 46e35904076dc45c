#include "model/tick-rtt-estimator.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstdlib>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TickRttEstimator");
NS_OBJECT_ENSURE_REGISTERED(TickRttEstimator);

namespace
{
constexpr int SRTT_SHIFT = 3;   // srtt kept in 1/8 tick
constexpr int RTTVAR_SHIFT = 2; // rttvar kept in 1/4 tick
} // namespace

TypeId
TickRttEstimator::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TickRttEstimator")
            .SetParent<RttEstimator>()
            .SetGroupName("Satnet")
            .AddConstructor<TickRttEstimator>()
            .AddAttribute("Tick",
                          "Granularity of the TCP timer: RTT samples are counted in whole ticks "
                          "and the RTO comes out in whole ticks (ns-2's tcp_tick_)",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&TickRttEstimator::m_tick),
                          MakeTimeChecker(TimeStep(1)));
    return tid;
}

TypeId
TickRttEstimator::GetInstanceTypeId() const
{
    return GetTypeId();
}

TickRttEstimator::TickRttEstimator()
{
    NS_LOG_FUNCTION(this);
}

TickRttEstimator::TickRttEstimator(const TickRttEstimator& other)
    : RttEstimator(other),
      m_tick(other.m_tick),
      m_srtt8(other.m_srtt8),
      m_rttvar4(other.m_rttvar4)
{
    NS_LOG_FUNCTION(this);
}

int64_t
TickRttEstimator::ToTicks(Time measure) const
{
    // Rounded up without forming measure + tick - 1, which could pass 2^63 for a huge tick.
    const int64_t tick = m_tick.GetTimeStep();
    const int64_t step = measure.GetTimeStep();
    const int64_t ticks = step / tick + (step % tick > 0 ? 1 : 0);
    return std::max<int64_t>(1, ticks);
}

void
TickRttEstimator::Measurement(Time measure)
{
    NS_LOG_FUNCTION(this << measure);
    const int64_t ticks = ToTicks(measure);
    if (m_srtt8 == 0)
    {
        m_srtt8 = ticks << SRTT_SHIFT;
        m_rttvar4 = ticks << (RTTVAR_SHIFT - 1);
    }
    else
    {
        int64_t delta = ticks - (m_srtt8 >> SRTT_SHIFT);
        m_srtt8 = std::max<int64_t>(1, m_srtt8 + delta);
        delta = std::abs(delta) - (m_rttvar4 >> RTTVAR_SHIFT);
        m_rttvar4 = std::max<int64_t>(1, m_rttvar4 + delta);
    }
    ++m_nSamples;
    UpdateEstimates();
    NS_LOG_DEBUG("sample " << ticks << " ticks, srtt " << m_srtt8 << "/8, rttvar " << m_rttvar4
                           << "/4 ticks");
}

void
TickRttEstimator::UpdateEstimates()
{
    // Truncating srtt makes srtt + 4 rttvar equal ns-2's floor(srtt + 4 rttvar) (see class doc).
    m_estimatedRtt = m_tick * (m_srtt8 >> SRTT_SHIFT);
    m_estimatedVariation = m_tick * m_rttvar4 / (int64_t{1} << RTTVAR_SHIFT);
}

Ptr<RttEstimator>
TickRttEstimator::Copy() const
{
    NS_LOG_FUNCTION(this);
    return CopyObject<TickRttEstimator>(this);
}

void
TickRttEstimator::Reset()
{
    NS_LOG_FUNCTION(this);
    RttEstimator::Reset();
    m_srtt8 = 0;
    m_rttvar4 = 0;
}

} // namespace ns3
