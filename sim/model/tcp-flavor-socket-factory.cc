#include "model/tcp-flavor-socket-factory.h"

#include "model/ns2-tcp-socket.h"
#include "model/tcp-flavor-socket.h"
#include "model/tick-rtt-estimator.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/uinteger.h"

#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFlavorSocketFactory");
NS_OBJECT_ENSURE_REGISTERED(TcpFlavorSocketFactory);

TypeId
TcpFlavorSocketFactory::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpFlavorSocketFactory")
            .SetParent<SocketFactory>()
            .SetGroupName("Satnet")
            .AddConstructor<TcpFlavorSocketFactory>()
            .AddAttribute("Model",
                          "Sender of the sockets: ns3 (TcpFlavorSocket, ns-3's arithmetic) or "
                          "ns2 (Ns2TcpSocket, ns-2.1b3's agents)",
                          EnumValue(TcpModel::NS3),
                          MakeEnumAccessor<TcpModel>(&TcpFlavorSocketFactory::m_model),
                          MakeTcpModelChecker())
            .AddAttribute("Flavor",
                          "Loss recovery of the sockets: vanilla, reno, newreno or sack",
                          EnumValue(TcpFlavor::NEWRENO),
                          MakeEnumAccessor<TcpFlavor>(&TcpFlavorSocketFactory::m_flavor),
                          MakeTcpFlavorChecker())
            .AddAttribute("SegmentSize",
                          "TCP maximum segment size in bytes (1024 on WAN, 9180 on MEO/GEO)",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&TcpFlavorSocketFactory::m_segmentSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("WindowBytes",
                          "Receive buffer in bytes, i.e. the largest advertised window; ns-3 "
                          "derives the window scale from it (65535 -> 0, 2097120 -> 5, "
                          "4194240 -> 6)",
                          UintegerValue(65535),
                          MakeUintegerAccessor(&TcpFlavorSocketFactory::m_windowBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("SndBufBytes",
                          "Send buffer in bytes; large, so a WWW server can queue whole files "
                          "(payload is virtual: the buffer costs memory per segment, not per byte)",
                          UintegerValue(512U << 20),
                          MakeUintegerAccessor(&TcpFlavorSocketFactory::m_sndBufBytes),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("InitialSsthresh",
                          "Initial slow-start threshold in bytes (RTT x bandwidth of the path)",
                          UintegerValue(56250),
                          MakeUintegerAccessor(&TcpFlavorSocketFactory::m_initialSsthresh),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Tick",
                          "TCP timer granularity: RTT samples and RTO in whole ticks",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&TcpFlavorSocketFactory::m_tick),
                          MakeTimeChecker(TimeStep(1)))
            .AddAttribute("MinRto",
                          "Lower bound of the retransmission timeout (ns-2: two ticks)",
                          TimeValue(MilliSeconds(200)),
                          MakeTimeAccessor(&TcpFlavorSocketFactory::m_minRto),
                          MakeTimeChecker())
            .AddAttribute("SlowStartRestart",
                          "ns2 sockets: cwnd returns to 1 when the retransmission timer expires "
                          "with nothing outstanding (Ns2TcpSocket::SlowStartRestart)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpFlavorSocketFactory::m_slowStartRestart),
                          MakeBooleanChecker())
            .AddAttribute("FastRetransmitGuard",
                          "ns2 sockets: ns-2's bug_fix_ guard against a second fast retransmit "
                          "for losses of one window (Ns2TcpSocket::FastRetransmitGuard)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TcpFlavorSocketFactory::m_fastRetransmitGuard),
                          MakeBooleanChecker())
            .AddAttribute("ByteWindow",
                          "ns2 sockets: the send window counted in bytes, segments below one "
                          "MSS sent (Ns2TcpSocket::ByteWindow)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TcpFlavorSocketFactory::m_byteWindow),
                          MakeBooleanChecker())
            .AddAttribute("TimerClock",
                          "Clock of the sockets' retransmission timers: perConnection or shared "
                          "(TcpFlavorSocket::TimerClock)",
                          EnumValue(TimerClock::PER_CONNECTION),
                          MakeEnumAccessor<TimerClock>(&TcpFlavorSocketFactory::m_timerClock),
                          MakeTimerClockChecker());
    return tid;
}

Ptr<Socket>
TcpFlavorSocketFactory::CreateSocket()
{
    NS_LOG_FUNCTION(this);
    Ptr<Node> node = GetObject<Node>();
    NS_ABORT_MSG_UNLESS(node, "TcpFlavorSocketFactory must be aggregated on a node");
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_UNLESS(tcp, "TcpFlavorSocketFactory needs an internet stack on node "
                                 << node->GetId());

    Ptr<TickRttEstimator> rtt = CreateObject<TickRttEstimator>();
    rtt->SetAttribute("Tick", TimeValue(m_tick));

    // The same steps as TcpL4Protocol::CreateSocket, which can only make a TcpSocketBase.
    Ptr<TcpFlavorSocket> socket;
    if (m_model == TcpModel::NS2)
    {
        Ptr<Ns2TcpSocket> ns2 = CreateObject<Ns2TcpSocket>();
        ns2->SetAttribute("Tick", TimeValue(m_tick));
        ns2->SetAttribute("SlowStartRestart", BooleanValue(m_slowStartRestart));
        ns2->SetAttribute("FastRetransmitGuard", BooleanValue(m_fastRetransmitGuard));
        ns2->SetAttribute("ByteWindow", BooleanValue(m_byteWindow));
        socket = ns2;
    }
    else
    {
        socket = CreateObject<TcpFlavorSocket>();
    }
    socket->SetNode(node);
    socket->SetTcp(tcp);
    socket->SetRtt(rtt);
    socket->SetCongestionControlAlgorithm(CreateObject<TcpNewReno>());
    socket->SetRecoveryAlgorithm(CreateObject<TcpClassicRecovery>());

    socket->SetAttribute("Flavor", EnumValue(m_flavor));
    socket->SetAttribute("TimerClock", EnumValue(m_timerClock));
    socket->SetAttribute("SegmentSize", UintegerValue(m_segmentSize));
    socket->SetAttribute("RcvBufSize", UintegerValue(m_windowBytes));
    socket->SetAttribute("SndBufSize", UintegerValue(m_sndBufBytes));
    socket->SetAttribute("InitialSlowStartThreshold", UintegerValue(m_initialSsthresh));
    socket->SetAttribute("InitialCwnd", UintegerValue(1));
    socket->SetAttribute("DelAckCount", UintegerValue(1));
    socket->SetAttribute("TcpNoDelay", BooleanValue(true));
    socket->SetAttribute("WindowScaling", BooleanValue(true));
    socket->SetAttribute("Timestamp", BooleanValue(false));
    socket->SetAttribute("ClockGranularity", TimeValue(m_tick));
    socket->SetAttribute("MinRto", TimeValue(m_minRto));
    // ns-2 never gives up on a connection; ns-3 would close it after 6 timeouts in a row.
    socket->SetAttribute("DataRetries", UintegerValue(std::numeric_limits<uint32_t>::max()));

    tcp->AddSocket(socket);
    return socket;
}

} // namespace ns3
