#include "model/send-buffer-manager.h"

#include "model/padhye-throughput.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SendBufferManager");
NS_OBJECT_ENSURE_REGISTERED(SendBufferManager);

TypeId
SendBufferManager::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SendBufferManager")
            .SetParent<Object>()
            .SetGroupName("Satnet")
            .AddConstructor<SendBufferManager>()
            .AddAttribute("Algorithm",
                          "How the pool is divided: eq, abt, sabt or fixed.",
                          EnumValue(BufferAlgorithm::SABT),
                          MakeEnumAccessor<BufferAlgorithm>(&SendBufferManager::m_algorithm),
                          MakeBufferAlgorithmChecker())
            .AddAttribute("Pool",
                          "B_tot: the send buffer shared by the host's connections, bytes.",
                          UintegerValue(350000),
                          MakeUintegerAccessor(&SendBufferManager::m_pool),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Interval",
                          "Time between reassignments (1 s for all three algorithms).",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&SendBufferManager::m_interval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AbtWindowFactor",
                          "abt: a connection's demand is this many congestion windows.",
                          DoubleValue(2),
                          MakeDoubleAccessor(&SendBufferManager::m_abtFactor),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("FixedBuffer",
                          "fixed: every admitted connection's buffer, bytes.",
                          UintegerValue(16384),
                          MakeUintegerAccessor(&SendBufferManager::m_fixedBuffer),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Leftover",
                          "The pool left when every demand fits: unassigned (each gets its "
                          "demand) or proportional (handed out in proportion to the demands).",
                          EnumValue(Leftover::UNASSIGNED),
                          MakeEnumAccessor<Leftover>(&SendBufferManager::m_leftover),
                          MakeLeftoverChecker())
            .AddAttribute("SmallFileLimit",
                          "A file smaller than this, bytes, gets its size as buffer and initial "
                          "window, outside the fair assignment (0: none).",
                          UintegerValue(8192),
                          MakeUintegerAccessor(&SendBufferManager::m_smallFileLimit),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("SabtRtt",
                          "sabt: the RTT in rho x RTT and in the throughput estimate: smoothed "
                          "(srtt), minimum (the smallest sample) or base (the path's, given to "
                          "Add()).",
                          EnumValue(SabtRtt::SMOOTHED),
                          MakeEnumAccessor<SabtRtt>(&SendBufferManager::m_sabtRtt),
                          MakeEnumChecker(SabtRtt::SMOOTHED,
                                          "smoothed",
                                          SabtRtt::MINIMUM,
                                          "minimum",
                                          SabtRtt::BASE,
                                          "base"))
            .AddAttribute("LossWindow",
                          "sabt: the loss rate p counts the loss indications and segments of "
                          "this last span (measured at the reassignments); 0: since the "
                          "connection started.",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&SendBufferManager::m_lossWindow),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Reassigned",
                            "The periodic reassignment has set every buffer.",
                            MakeTraceSourceAccessor(&SendBufferManager::m_reassigned),
                            "ns3::TracedCallback::Void");
    return tid;
}

SendBufferManager::SendBufferManager()
{
    NS_LOG_FUNCTION(this);
}

void
SendBufferManager::DoDispose()
{
    m_timer.Cancel();
    m_connections.clear();
    m_active.clear();
    Object::DoDispose();
}

uint32_t
SendBufferManager::Add(Ptr<Ns2TcpSocket> socket, uint64_t fileBytes, Time baseRtt)
{
    NS_ABORT_MSG_UNLESS(socket, "SendBufferManager: no socket");
    NS_ABORT_MSG_IF(m_sabtRtt == SabtRtt::BASE && !baseRtt.IsStrictlyPositive(),
                    "SendBufferManager: SabtRtt base needs each connection's base RTT");
    Connection& c = m_connections.emplace_back();
    c.socket = socket;
    c.fileBytes = fileBytes;
    c.baseRtt = baseRtt;
    c.start = Simulator::Now();
    c.smallFile = fileBytes > 0 && fileBytes < m_smallFileLimit;
    const auto id = static_cast<uint32_t>(m_connections.size() - 1);
    m_active.push_back(id);
    if (c.smallFile)
    {
        const uint32_t mss = socket->GetSegmentSize();
        socket->SetInitialWindow(static_cast<uint32_t>((fileBytes + mss - 1) / mss));
        c.assigned = static_cast<double>(fileBytes);
        socket->SetSendBuffer(static_cast<uint32_t>(fileBytes));
    }
    else
    {
        Reassign(); // the newcomer's equal share now, not at the next tick
    }
    return id;
}

void
SendBufferManager::Remove(uint32_t id)
{
    NS_ABORT_MSG_UNLESS(id < m_connections.size(), "SendBufferManager: no connection " << id);
    Connection& c = m_connections[id];
    if (!c.active)
    {
        return;
    }
    c.active = false;
    c.assigned = 0;
    c.socket = nullptr; // a server's connections come and go by the thousand
    m_active.erase(std::find(m_active.begin(), m_active.end(), id));
}

void
SendBufferManager::Start()
{
    m_timer.Cancel();
    Tick();
}

const std::vector<SendBufferManager::Connection>&
SendBufferManager::GetConnections() const
{
    return m_connections;
}

uint64_t
SendBufferManager::GetPool() const
{
    return m_pool;
}

uint64_t
SendBufferManager::GetUnacknowledged() const
{
    uint64_t bytes = 0;
    for (uint32_t id : m_active)
    {
        bytes += m_connections[id].socket->GetUnacknowledgedBytes();
    }
    return bytes;
}

void
SendBufferManager::Tick()
{
    Reassign();
    m_reassigned();
    m_timer = Simulator::Schedule(m_interval, &SendBufferManager::Tick, this);
}

double
SendBufferManager::Demand(const Connection& c, double equalShare) const
{
    const Ptr<Ns2TcpSocket>& s = c.socket;
    switch (m_algorithm)
    {
    case BufferAlgorithm::ABT:
        return m_abtFactor * s->GetCwndPackets() * s->GetSegmentSize();
    case BufferAlgorithm::SABT: {
        const double rtt = EstimateRtt(c).GetSeconds();
        if (s->GetRttSamples() == 0 || rtt <= 0)
        {
            return equalShare; // no estimate yet
        }
        if (c.lossRate <= 0)
        {
            return static_cast<double>(m_pool); // nothing lost: no limit known
        }
        const double rho =
            PadhyeThroughput(c.lossRate, rtt, s->GetRtoWithoutBackoff().GetSeconds());
        return rho * rtt * s->GetSegmentSize();
    }
    case BufferAlgorithm::EQ:
    case BufferAlgorithm::FIXED:
        break;
    }
    return equalShare;
}

Time
SendBufferManager::EstimateRtt(const Connection& c) const
{
    switch (m_sabtRtt)
    {
    case SabtRtt::MINIMUM:
        return c.socket->GetMinRtt();
    case SabtRtt::BASE:
        return c.baseRtt;
    case SabtRtt::SMOOTHED:
        break;
    }
    return c.socket->GetSmoothedRtt();
}

void
SendBufferManager::UpdateLossRate(Connection& c) const
{
    // Loss indications, as Padhye et al.'s p: a go-back-N after a timeout resends packets
    // that had arrived, so retransmissions would overstate the losses.
    const Time now = Simulator::Now();
    const uint64_t sent = c.socket->GetDataSegmentsSent();
    const uint64_t losses = c.socket->GetFastRetransmits() + c.socket->GetTimeouts();
    uint64_t sentBefore = 0;
    uint64_t lossesBefore = 0;
    if (m_lossWindow.IsStrictlyPositive())
    {
        // The oldest counters inside the window are its start (the connection's own start,
        // with zero counters, while it is younger than the window).
        while (!c.history.empty() && c.history.front().at < now - m_lossWindow)
        {
            c.history.pop_front();
        }
        if (!c.history.empty() && c.start < now - m_lossWindow)
        {
            sentBefore = c.history.front().sent;
            lossesBefore = c.history.front().losses;
        }
        c.history.push_back({now, sent, losses});
        if (sent == sentBefore)
        {
            return; // nothing sent in the window (a timeout's wait): p as it was
        }
    }
    c.lossRate = sent > sentBefore ? static_cast<double>(losses - lossesBefore) /
                                         static_cast<double>(sent - sentBefore)
                                   : 0;
}

void
SendBufferManager::Reassign()
{
    double pool = static_cast<double>(m_pool);
    std::vector<Connection*> large;
    for (uint32_t id : m_active)
    {
        Connection& c = m_connections[id];
        if (c.smallFile)
        {
            pool -= c.assigned;
            continue;
        }
        UpdateLossRate(c);
        large.push_back(&c);
    }
    if (large.empty())
    {
        return;
    }
    pool = std::max(0.0, pool);
    const double equalShare = pool / large.size();
    std::vector<double> demands;
    for (Connection* c : large)
    {
        demands.push_back(Demand(*c, equalShare));
    }
    std::vector<double> shares;
    switch (m_algorithm)
    {
    case BufferAlgorithm::EQ:
        shares = demands; // every demand is the equal share
        break;
    case BufferAlgorithm::ABT:
        shares = MaxMinShares(pool, demands, m_leftover);
        break;
    case BufferAlgorithm::SABT:
        shares = ProportionalShares(pool, demands, m_leftover);
        break;
    case BufferAlgorithm::FIXED:
        shares = FixedShares(pool, static_cast<double>(m_fixedBuffer), large.size());
        break;
    }
    for (size_t i = 0; i < large.size(); ++i)
    {
        Connection& c = *large[i];
        c.demand = m_algorithm == BufferAlgorithm::EQ || m_algorithm == BufferAlgorithm::FIXED
                       ? std::nullopt
                       : std::optional<double>(demands[i]);
        // Whole segments, rounded down: the buffers never sum above the pool, and a window is
        // whole packets as in ns-2 (a partial segment at a buffer's end would go out on its own).
        // At least one (but fixed's 0 for a connection not admitted): a connection without
        // buffer would send nothing, and its estimate would never change.
        const double mss = c.socket->GetSegmentSize();
        const double least = m_algorithm == BufferAlgorithm::FIXED ? 0 : 1;
        c.assigned = std::max(least, std::floor(shares[i] / mss)) * mss;
        c.socket->SetSendBuffer(static_cast<uint32_t>(c.assigned));
    }
    NS_LOG_LOGIC(Simulator::Now().GetSeconds() << " s: " << large.size() << " connections");
}

} // namespace ns3
