/*
 * Tests of the TCP flavors, the tick RTT estimator and the TCP helper.
 *
 * The recovery tests run one bulk transfer over a 100 Mbps link with a 50 ms RTT (fast enough
 * that no queue builds: every RTT is the propagation RTT) and drop the first transmission of
 * three segments of one window, then check how each flavor gets them back.
 */
#include "helper/link-preset.h"
#include "helper/tcp-flavor-helper.h"
#include "model/tcp-flavor-socket-factory.h"
#include "model/tcp-flavor-socket.h"
#include "model/ns2-tcp-socket.h"
#include "model/tcp-flavor.h"
#include "model/tick-rtt-estimator.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-option-winscale.h"
#include "ns3/test.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

const Time LINK_DELAY = MilliSeconds(25);
const Time BASE_RTT = LINK_DELAY * 2;
const uint16_t PORT = 5000;

/// Drops the first transmission of chosen TCP data segments, found by sequence number.
class SegmentDropModel : public ErrorModel
{
  public:
    /// @param seqs sequence numbers of the segments to drop, once per occurrence
    void SetTargets(const std::multiset<uint32_t>& seqs)
    {
        m_targets = seqs;
    }

    /// @return segments dropped so far
    uint32_t GetDropped() const
    {
        return m_dropped;
    }

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> copy = p->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        copy->RemoveHeader(ppp);
        copy->RemoveHeader(ip);
        copy->RemoveHeader(tcp);
        auto target = m_targets.find(tcp.GetSequenceNumber().GetValue());
        if (copy->GetSize() == 0 || target == m_targets.end())
        {
            return false;
        }
        m_targets.erase(target);
        ++m_dropped;
        return true;
    }

    void DoReset() override
    {
    }

    std::multiset<uint32_t> m_targets; ///< segments still to drop
    uint32_t m_dropped{0};        ///< segments dropped
};

/// Two hosts joined by a point-to-point link, with the study's TCP installed.
struct HostPair
{
    NodeContainer nodes;          ///< sender (0) and receiver (1)
    NetDeviceContainer devices;   ///< their link devices
    Ipv4InterfaceContainer ifaces; ///< their addresses
};

HostPair
BuildHostPair(const TcpParameters& parameters, Time delay = LINK_DELAY)
{
    HostPair pair;
    pair.nodes.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    link.SetChannelAttribute("Delay", TimeValue(delay));
    pair.devices = link.Install(pair.nodes);
    InternetStackHelper().Install(pair.nodes);
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.0");
    pair.ifaces = addresses.Assign(pair.devices);
    TcpFlavorHelper(parameters).Install(pair.nodes);
    return pair;
}

Ptr<PacketSink>
InstallSink(Ptr<Node> node)
{
    PacketSinkHelper sink(TcpFlavorSocketFactory::GetTypeId().GetName(),
                          InetSocketAddress(Ipv4Address::GetAny(), PORT));
    ApplicationContainer apps = sink.Install(node);
    apps.Start(Seconds(0));
    return DynamicCast<PacketSink>(apps.Get(0));
}

Ptr<BulkSendApplication>
InstallBulkSender(Ptr<Node> node, Ipv4Address to, uint64_t bytes, Time start)
{
    BulkSendHelper bulk(TcpFlavorSocketFactory::GetTypeId().GetName(), InetSocketAddress(to, PORT));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.SetAttribute("SendSize", UintegerValue(1000));
    ApplicationContainer apps = bulk.Install(node);
    apps.Start(start);
    return DynamicCast<BulkSendApplication>(apps.Get(0));
}

} // namespace

/// Parsing and printing flavor names.
class TcpFlavorNameTestCase : public TestCase
{
  public:
    TcpFlavorNameTestCase()
        : TestCase("flavor names parse and print")
    {
    }

  private:
    void DoRun() override
    {
        for (TcpFlavor f : {TcpFlavor::VANILLA, TcpFlavor::RENO, TcpFlavor::NEWRENO, TcpFlavor::SACK})
        {
            auto parsed = ParseTcpFlavor(ToString(f));
            NS_TEST_ASSERT_MSG_EQ(parsed.has_value(), true, "name of flavor does not parse");
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(*parsed), static_cast<int>(f), "round trip");
        }
        NS_TEST_ASSERT_MSG_EQ(ToString(TcpFlavor::NEWRENO), "newreno", "name");
        NS_TEST_ASSERT_MSG_EQ(ParseTcpFlavor("Tahoe").has_value(), false, "unknown name parsed");
    }
};

/// Rounding of samples to ticks and the tick-granular RTO they give TcpSocketBase.
class TickRttEstimatorTestCase : public TestCase
{
  public:
    TickRttEstimatorTestCase()
        : TestCase("tick RTT estimator rounds up to ticks and yields RTOs in whole ticks")
    {
    }

  private:
    /// TcpSocketBase's RFC 6298 formula with the factory's settings (granularity = tick).
    static Time Rto(Ptr<RttEstimator> rtt)
    {
        const Time tick = MilliSeconds(100);
        const Time minRto = tick * 2;
        return Max(rtt->GetEstimate() + Max(tick, rtt->GetVariation() * 4), minRto);
    }

    void DoRun() override
    {
        Ptr<TickRttEstimator> rtt = CreateObject<TickRttEstimator>();
        NS_TEST_ASSERT_MSG_EQ(rtt->ToTicks(Time(0)), 1, "a sample is at least one tick");
        NS_TEST_ASSERT_MSG_EQ(rtt->ToTicks(MilliSeconds(1)), 1, "rounded up");
        NS_TEST_ASSERT_MSG_EQ(rtt->ToTicks(MilliSeconds(100)), 1, "whole tick stays");
        NS_TEST_ASSERT_MSG_EQ(rtt->ToTicks(MilliSeconds(100) + NanoSeconds(1)), 2, "rounded up");
        NS_TEST_ASSERT_MSG_EQ(rtt->ToTicks(MilliSeconds(551)), 6, "GEO RTT");

        // First sample, 1 tick: srtt 1, rttvar 1/2 -> RTO 1 + 4/2 = 3 ticks.
        rtt->Measurement(MilliSeconds(50));
        NS_TEST_ASSERT_MSG_EQ(rtt->GetEstimate(), MilliSeconds(100), "srtt");
        NS_TEST_ASSERT_MSG_EQ(rtt->GetVariation(), MilliSeconds(50), "rttvar");
        NS_TEST_ASSERT_MSG_EQ(Rto(rtt), MilliSeconds(300), "RTO after one sample");

        // 2 ticks: delta 1, srtt 9/8, rttvar 3/4 -> RTO floor(9/8 + 3) = 4 ticks (as ns-2).
        rtt->Measurement(MilliSeconds(120));
        NS_TEST_ASSERT_MSG_EQ(rtt->GetEstimate(), MilliSeconds(100), "srtt reported in ticks");
        NS_TEST_ASSERT_MSG_EQ(rtt->GetVariation(), MilliSeconds(75), "rttvar in 1/4 ticks");
        NS_TEST_ASSERT_MSG_EQ(Rto(rtt), MilliSeconds(400), "RTO after two samples");

        // Larger samples: every RTO stays a whole number of ticks.
        for (int ms : {330, 420, 610, 180, 95, 1234, 560, 560, 560})
        {
            rtt->Measurement(MilliSeconds(ms));
            const int64_t rtoNs = Rto(rtt).GetNanoSeconds();
            NS_TEST_ASSERT_MSG_EQ(rtoNs % 100000000, 0, "RTO not in whole ticks: " << rtoNs);
        }
        NS_TEST_ASSERT_MSG_EQ(rtt->GetNSamples(), 11, "samples counted");

        Ptr<RttEstimator> copy = rtt->Copy();
        NS_TEST_ASSERT_MSG_EQ(copy->GetEstimate(), rtt->GetEstimate(), "copy keeps srtt");
        NS_TEST_ASSERT_MSG_EQ(copy->GetVariation(), rtt->GetVariation(), "copy keeps rttvar");

        rtt->Reset();
        NS_TEST_ASSERT_MSG_EQ(rtt->GetVariation(), Time(0), "reset clears rttvar");
        rtt->Measurement(MilliSeconds(250));
        NS_TEST_ASSERT_MSG_EQ(rtt->GetEstimate(), MilliSeconds(300), "first sample after reset");
        NS_TEST_ASSERT_MSG_EQ(rtt->GetVariation(), MilliSeconds(150), "rttvar = srtt / 2");

        // satnet's extreme ticks: 1 ns counts a 10 s sample as 10^10 ticks (past 32 bits), and
        // a 1 s tick counts satnet's longest possible sample (2e6 s) without overflow.
        Ptr<TickRttEstimator> fine = CreateObject<TickRttEstimator>();
        fine->SetAttribute("Tick", TimeValue(NanoSeconds(1)));
        NS_TEST_ASSERT_MSG_EQ(fine->ToTicks(Seconds(10)), 10000000000, "1 ns ticks");
        fine->Measurement(Seconds(10));
        NS_TEST_ASSERT_MSG_EQ(fine->GetEstimate(), Seconds(10), "srtt of 10^10 ticks");
        NS_TEST_ASSERT_MSG_EQ(fine->GetVariation(), Seconds(5), "rttvar of 10^10 ticks");
        Ptr<TickRttEstimator> coarse = CreateObject<TickRttEstimator>();
        coarse->SetAttribute("Tick", TimeValue(Seconds(1)));
        NS_TEST_ASSERT_MSG_EQ(coarse->ToTicks(Seconds(2e6) - NanoSeconds(1)), 2000000, "1 s");
        coarse->Measurement(Seconds(2e6));
        NS_TEST_ASSERT_MSG_EQ(coarse->GetEstimate(), Seconds(2e6), "srtt of 2e6 ticks");
        NS_TEST_ASSERT_MSG_EQ(coarse->GetVariation(), Seconds(1e6), "rttvar of 2e6 ticks");
    }
};

/// The window scale ns-3 derives from the study's receive windows, read off the client's SYN.
class WindowScaleTestCase : public TestCase
{
  public:
    /**
     * @param parameters the study's parameters for one path type
     * @param expectedScale window scale the SYN must carry
     */
    WindowScaleTestCase(const TcpParameters& parameters, uint8_t expectedScale)
        : TestCase("window " + std::to_string(parameters.windowBytes) + " B gives scale " +
                   std::to_string(expectedScale)),
          m_parameters(parameters),
          m_expectedScale(expectedScale)
    {
    }

  private:
    void Sent(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
    {
        if ((header.GetFlags() & TcpHeader::SYN) && header.HasOption(TcpOption::WINSCALE))
        {
            m_scale = DynamicCast<const TcpOptionWinScale>(header.GetOption(TcpOption::WINSCALE))
                          ->GetScale();
        }
    }

    void DoRun() override
    {
        HostPair pair = BuildHostPair(m_parameters);
        Ptr<PacketSink> sink = InstallSink(pair.nodes.Get(1));
        Ptr<Socket> client =
            Socket::CreateSocket(pair.nodes.Get(0), TcpFlavorSocketFactory::GetTypeId());
        client->TraceConnectWithoutContext("Tx", MakeCallback(&WindowScaleTestCase::Sent, this));
        // Not before Simulator::Run(): the traffic-control layer is set up at initialization.
        const Address server = InetSocketAddress(pair.ifaces.GetAddress(1), PORT);
        Simulator::Schedule(MilliSeconds(1), [client, server]() { client->Connect(server); });
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        UintegerValue rcvBuf;
        client->GetAttribute("RcvBufSize", rcvBuf);
        NS_TEST_ASSERT_MSG_EQ(rcvBuf.Get(), m_parameters.windowBytes, "receive buffer");
        NS_TEST_ASSERT_MSG_EQ(static_cast<int>(m_scale),
                              static_cast<int>(m_expectedScale),
                              "window scale in the SYN");
        NS_TEST_ASSERT_MSG_EQ(sink->GetAcceptedSockets().size(), 1, "connection accepted");
        Simulator::Destroy();
    }

    TcpParameters m_parameters; ///< parameters under test
    uint8_t m_expectedScale;    ///< scale the SYN must carry
    int m_scale{-1};            ///< scale seen in the SYN
};

/// Three losses in one window: how each flavor recovers.
class FlavorRecoveryTestCase : public TestCase
{
  public:
    /// @param flavor flavor under test
    explicit FlavorRecoveryTestCase(TcpFlavor flavor)
        : TestCase(ToString(flavor) + " recovers three losses in one window as specified"),
          m_flavor(flavor)
    {
    }

  private:
    void CongStateChanged(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
    {
        if (state == TcpSocketState::CA_RECOVERY && m_recoveryStart.IsZero())
        {
            m_recoveryStart = Simulator::Now();
        }
        else if (!m_recoveryStart.IsZero() && m_recoveryEnd.IsZero() &&
                 state != TcpSocketState::CA_RECOVERY)
        {
            m_recoveryEnd = Simulator::Now();
            m_exitState = state;
        }
    }

    void RtoChanged(Time, Time rto)
    {
        m_rtoInWholeTicks = m_rtoInWholeTicks && rto.GetNanoSeconds() % 100000000 == 0;
    }

    void HookSender(Ptr<BulkSendApplication> app)
    {
        m_sender = DynamicCast<TcpFlavorSocket>(app->GetSocket());
        NS_ASSERT(m_sender);
        m_sender->TraceConnectWithoutContext(
            "CongState",
            MakeCallback(&FlavorRecoveryTestCase::CongStateChanged, this));
        m_sender->TraceConnectWithoutContext("RTO",
                                             MakeCallback(&FlavorRecoveryTestCase::RtoChanged, this));
    }

    void DoRun() override
    {
        auto parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), m_flavor);
        parameters.mss = 1000;
        parameters.initialSsthreshBytes = 32000;
        HostPair pair = BuildHostPair(parameters);

        // Slow start sends segments 0-62 (0-based; data starts at sequence 1) in six rounds,
        // then congestion avoidance a window of about 32 segments per round trip: segments 100,
        // 103 and 106 are early in the window of the 8th round. (In slow start the flight
        // doubles each round, and the SACKs of its second half come a round trip late.)
        Ptr<SegmentDropModel> drops = CreateObject<SegmentDropModel>();
        drops->SetTargets({1 + 100 * 1000, 1 + 103 * 1000, 1 + 106 * 1000});
        DynamicCast<PointToPointNetDevice>(pair.devices.Get(1))->SetReceiveErrorModel(drops);

        const uint64_t bytes = 200000;
        const Time start = Seconds(0.1);
        Ptr<PacketSink> sink = InstallSink(pair.nodes.Get(1));
        Ptr<BulkSendApplication> app =
            InstallBulkSender(pair.nodes.Get(0), pair.ifaces.GetAddress(1), bytes, start);
        Simulator::Schedule(start + MicroSeconds(1), &FlavorRecoveryTestCase::HookSender, this, app);
        Simulator::Stop(Seconds(30));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(drops->GetDropped(), 3, "the three segments were dropped");
        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), bytes, "transfer incomplete");
        NS_TEST_ASSERT_MSG_EQ(m_rtoInWholeTicks, true, "an RTO was not a whole number of ticks");
        for (const Ptr<Socket>& accepted : sink->GetAcceptedSockets())
        {
            NS_TEST_ASSERT_MSG_NE(DynamicCast<TcpFlavorSocket>(accepted),
                                  nullptr,
                                  "accepted socket is not a TcpFlavorSocket (Fork)");
        }

        const uint32_t timeouts = m_sender->GetTimeouts();
        const uint32_t fastRetransmits = m_sender->GetFastRetransmits();
        const double recoveryRtts = (m_recoveryEnd - m_recoveryStart).GetSeconds() /
                                    BASE_RTT.GetSeconds();
        std::clog << ToString(m_flavor) << ": fast retransmits " << fastRetransmits
                  << ", timeouts " << timeouts << ", retransmitted segments "
                  << m_sender->GetRetransmittedSegments() << ", recovery "
                  << (m_recoveryStart.IsZero() ? 0.0 : recoveryRtts) << " RTT" << std::endl;
        NS_TEST_ASSERT_MSG_GT_OR_EQ(m_sender->GetRetransmittedSegments(), 3, "retransmissions");

        switch (m_flavor)
        {
        case TcpFlavor::VANILLA:
            NS_TEST_ASSERT_MSG_EQ(fastRetransmits, 0, "vanilla must not fast-retransmit");
            NS_TEST_ASSERT_MSG_EQ(m_recoveryStart.IsZero(), true, "vanilla entered recovery");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(timeouts, 1, "vanilla recovers by timeout");
            break;
        case TcpFlavor::RENO:
            NS_TEST_ASSERT_MSG_GT_OR_EQ(fastRetransmits, 1, "reno fast-retransmits");
            NS_TEST_ASSERT_MSG_GT_OR_EQ(timeouts, 1, "reno needs a timeout for the rest");
            NS_TEST_ASSERT_MSG_EQ(m_exitState, TcpSocketState::CA_OPEN, "reno exit state");
            // It leaves recovery on the first (partial) ACK, one round trip after entering.
            NS_TEST_ASSERT_MSG_GT(recoveryRtts, 0.9, "reno recovery too short");
            NS_TEST_ASSERT_MSG_LT(recoveryRtts, 1.5, "reno stayed in recovery");
            break;
        case TcpFlavor::NEWRENO:
            NS_TEST_ASSERT_MSG_EQ(fastRetransmits, 1, "newreno fast-retransmits once");
            NS_TEST_ASSERT_MSG_EQ(timeouts, 0, "newreno must not time out");
            NS_TEST_ASSERT_MSG_EQ(m_exitState, TcpSocketState::CA_OPEN, "newreno exit state");
            NS_TEST_ASSERT_MSG_GT(recoveryRtts, 2.5, "newreno: one loss per round trip");
            NS_TEST_ASSERT_MSG_LT(recoveryRtts, 3.5, "newreno: one loss per round trip");
            break;
        case TcpFlavor::SACK:
            NS_TEST_ASSERT_MSG_EQ(fastRetransmits, 1, "sack fast-retransmits once");
            NS_TEST_ASSERT_MSG_EQ(timeouts, 0, "sack must not time out");
            NS_TEST_ASSERT_MSG_EQ(m_exitState, TcpSocketState::CA_OPEN, "sack exit state");
            NS_TEST_ASSERT_MSG_LT(recoveryRtts, 1.6, "sack repairs all losses in one round trip");
            break;
        }
        m_sender = nullptr;
        Simulator::Destroy();
    }

    TcpFlavor m_flavor;                                             ///< flavor under test
    Ptr<TcpFlavorSocket> m_sender;                                  ///< the bulk sender's socket
    Time m_recoveryStart;                                           ///< first entry into recovery
    Time m_recoveryEnd;                                             ///< first exit from recovery
    TcpSocketState::TcpCongState_t m_exitState{TcpSocketState::CA_OPEN}; ///< state after exit
    bool m_rtoInWholeTicks{true};                                   ///< every RTO was whole ticks
};

/**
 * Many connections, both directions, bulk and on/off traffic, random loss of data and ACKs,
 * a shared queue: no ns-3 assert may fire, and every bulk transfer must complete.
 */
class FlavorStressTestCase : public TestCase
{
  public:
    /**
     * @param flavor flavor under test
     * @param mss segment size
     * @param connections connections per direction
     * @param lossRate probability of losing a packet at each receiver
     * @param delay one-way link delay
     * @param duration simulated time
     * @param model sender model
     * @param guardAndWindow ns2 model: FastRetransmitGuard and ByteWindow
     */
    FlavorStressTestCase(TcpFlavor flavor,
                         uint32_t mss,
                         uint32_t connections,
                         double lossRate,
                         Time delay,
                         Time duration,
                         TcpModel model = TcpModel::NS3,
                         std::pair<bool, bool> guardAndWindow = {true, false})
        : TestCase((model == TcpModel::NS2 ? "ns2 " : "") + ToString(flavor) + " survives " + std::to_string(2 * connections) +
                   " lossy connections, MSS " + std::to_string(mss) + ", delay " +
                   std::to_string(delay.GetMilliSeconds()) + " ms, " +
                   std::to_string(static_cast<int>(duration.GetSeconds())) + " s" +
                   (guardAndWindow.first ? "" : ", no fast retransmit guard") +
                   (guardAndWindow.second ? ", byte window" : "")),
          m_flavor(flavor),
          m_mss(mss),
          m_connections(connections),
          m_lossRate(lossRate),
          m_delay(delay),
          m_duration(duration),
          m_model(model),
          m_guardAndWindow(guardAndWindow)
    {
    }

  private:
    void DoRun() override
    {
        auto parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), m_flavor);
        parameters.model = m_model;
        std::tie(parameters.fastRetransmitGuard, parameters.byteWindow) = m_guardAndWindow;
        parameters.mss = m_mss;
        parameters.windowBytes = 64 * m_mss;
        parameters.initialSsthreshBytes = 32 * m_mss;
        HostPair pair = BuildHostPair(parameters, m_delay);
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
            loss->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
            loss->SetAttribute("ErrorRate", DoubleValue(m_lossRate));
            loss->AssignStreams(100 + i);
            DynamicCast<PointToPointNetDevice>(pair.devices.Get(i))->SetReceiveErrorModel(loss);
        }

        Ptr<UniformRandomVariable> startTimes = CreateObject<UniformRandomVariable>();
        startTimes->SetStream(200);
        const uint64_t bulkBytes = 40 * m_mss;
        std::vector<Ptr<Application>> senders;
        for (uint32_t dir = 0; dir < 2; ++dir)
        {
            Ptr<Node> from = pair.nodes.Get(dir);
            Ptr<Node> to = pair.nodes.Get(1 - dir);
            Ipv4Address toAddress = pair.ifaces.GetAddress(1 - dir);
            InstallSink(to);
            for (uint32_t c = 0; c < m_connections; ++c)
            {
                const Time start = Seconds(startTimes->GetValue(0, 1));
                if (c % 2 == 0)
                {
                    senders.push_back(InstallBulkSender(from, toAddress, bulkBytes, start));
                }
                else
                {
                    // Application-limited bursts with idle gaps: small writes, empty buffers.
                    OnOffHelper onOff(TcpFlavorSocketFactory::GetTypeId().GetName(),
                                      InetSocketAddress(toAddress, PORT));
                    onOff.SetConstantRate(DataRate("2Mbps"), 700);
                    onOff.SetAttribute("OnTime",
                                       StringValue("ns3::ExponentialRandomVariable[Mean=0.3]"));
                    onOff.SetAttribute("OffTime",
                                       StringValue("ns3::ExponentialRandomVariable[Mean=0.5]"));
                    ApplicationContainer apps = onOff.Install(from);
                    apps.Start(start);
                    senders.push_back(apps.Get(0));
                }
            }
        }
        Simulator::Stop(m_duration);
        Simulator::Run();

        uint32_t timeouts = 0;
        uint32_t fastRetransmits = 0;
        uint32_t retransmitted = 0;
        for (const Ptr<Application>& app : senders)
        {
            auto bulk = DynamicCast<BulkSendApplication>(app);
            Ptr<TcpFlavorSocket> tcp = DynamicCast<TcpFlavorSocket>(
                bulk ? bulk->GetSocket() : DynamicCast<OnOffApplication>(app)->GetSocket());
            NS_TEST_ASSERT_MSG_NE(tcp, nullptr, "sender socket is not a TcpFlavorSocket");
            if (bulk)
            {
                // Data starts at sequence 1: everything acknowledged moves the head past it.
                NS_TEST_ASSERT_MSG_GT_OR_EQ(tcp->GetTxBuffer()->HeadSequence().GetValue(),
                                            1 + bulkBytes,
                                            "a bulk transfer did not complete");
            }
            timeouts += tcp->GetTimeouts();
            fastRetransmits += tcp->GetFastRetransmits();
            retransmitted += tcp->GetRetransmittedSegments();
        }
        std::clog << GetName() << ": timeouts " << timeouts << ", fast retransmits "
                  << fastRetransmits << ", retransmitted " << retransmitted << std::endl;
        NS_TEST_ASSERT_MSG_GT(retransmitted, 0, "no loss was repaired");
        if (m_flavor == TcpFlavor::VANILLA)
        {
            NS_TEST_ASSERT_MSG_EQ(fastRetransmits, 0, "vanilla fast-retransmitted");
        }
        Simulator::Destroy();
    }

    TcpFlavor m_flavor;      ///< flavor under test
    uint32_t m_mss;          ///< segment size
    uint32_t m_connections;  ///< connections per direction
    double m_lossRate;       ///< packet loss probability at each receiver
    Time m_delay;            ///< one-way link delay
    Time m_duration;         ///< simulated time
    TcpModel m_model;        ///< sender model
    std::pair<bool, bool> m_guardAndWindow; ///< FastRetransmitGuard, ByteWindow
};

/// All TCP flavor tests.
class TcpFlavorTestSuite : public TestSuite
{
  public:
    TcpFlavorTestSuite()
        : TestSuite("satnet-tcp-flavor", Type::UNIT)
    {
        AddTestCase(new TcpFlavorNameTestCase);
        AddTestCase(new TickRttEstimatorTestCase);
        AddTestCase(new WindowScaleTestCase(
            TcpParameters::ForLink(LinkPreset::Get("wan"), TcpFlavor::RENO),
            0));
        AddTestCase(new WindowScaleTestCase(
            TcpParameters::ForLink(LinkPreset::Get("meo"), TcpFlavor::SACK),
            5));
        AddTestCase(new WindowScaleTestCase(
            TcpParameters::ForLink(LinkPreset::Get("geo"), TcpFlavor::NEWRENO),
            6));
        const TcpFlavor flavors[] = {TcpFlavor::VANILLA,
                                     TcpFlavor::RENO,
                                     TcpFlavor::NEWRENO,
                                     TcpFlavor::SACK};
        for (TcpFlavor flavor : flavors)
        {
            AddTestCase(new FlavorRecoveryTestCase(flavor));
        }
        for (TcpFlavor flavor : flavors)
        {
            AddTestCase(
                new FlavorStressTestCase(flavor, 1000, 10, 0.01, LINK_DELAY, Seconds(20)));
        }
        // The longer runs: sim-test --suite=satnet-tcp-flavor --fullness=EXTENSIVE
        for (TcpFlavor flavor : flavors)
        {
            AddTestCase(new FlavorStressTestCase(flavor,
                                                 1024,
                                                 25,
                                                 0.02,
                                                 MilliSeconds(5),
                                                 Seconds(200)),
                        Duration::EXTENSIVE);
            AddTestCase(new FlavorStressTestCase(flavor,
                                                 9180,
                                                 25,
                                                 0.02,
                                                 MilliSeconds(275),
                                                 Seconds(200)),
                        Duration::EXTENSIVE);
        }
    }
};

/// Static instance registering the suite.
static TcpFlavorTestSuite g_tcpFlavorTestSuite;

namespace
{

/// Segment i (0-based) of a bulk transfer with 1000-byte segments starts at this sequence.
uint32_t
SegmentSeq(uint32_t i)
{
    return 1 + i * 1000;
}

/**
 * One bulk transfer between two hosts, with the sender's events recorded for the ns-2 tests.
 *
 * Each ns-2 test runs its scenario twice: with the ns2 model it must meet ns-2's expectation,
 * and with the ns3 model (today's sender) the same check must fail, which shows that the test
 * tells the two apart.
 */
class Ns2Scenario
{
  public:
    TcpParameters parameters;          ///< TCP settings (model and flavor included)
    std::multiset<uint32_t> drops;     ///< first byte of each transmission to drop
    uint64_t bytes{200000};            ///< transfer size
    Time delay{LINK_DELAY};            ///< one-way link delay
    std::string tickPhase{"ns3::ConstantRandomVariable[Constant=0]"}; ///< Ns2TcpSocket TickPhase

    /// A data segment sent.
    struct Sent
    {
        Time time;         ///< when
        uint32_t seq;      ///< first byte
        bool isNew;        ///< never sent before
        uint32_t size;     ///< payload bytes
    };

    /// A sample of the sender's state, taken after an event was processed.
    struct Sample
    {
        Time time;              ///< when
        Time rto;               ///< RTO last set
        uint32_t ssthresh;      ///< ssthresh, bytes
        uint32_t cwnd;          ///< cwnd, bytes
        uint64_t timeouts;      ///< timeouts so far
    };

    std::vector<Sent> sent;                 ///< data segments sent
    /// ACKs received: time, ACK number, SACK blocks.
    std::vector<std::tuple<Time, uint32_t, TcpOptionSack::SackList>> acks;
    std::vector<Sample> afterNewAck;        ///< state after each ACK of new data
    std::vector<std::pair<Time, TcpSocketState::TcpCongState_t>> states; ///< CongState changes
    std::vector<Sample> atStateChange;      ///< state after each CongState change
    std::vector<Time> srtts;                ///< smoothed RTT values
    Ptr<TcpFlavorSocket> sender;            ///< the sender's socket
    uint32_t dropped{0};                    ///< transmissions dropped
    uint64_t received{0};                   ///< bytes received
    uint64_t rttSamples{0};                 ///< RTT samples the sender took
    uint64_t fastRetransmits{0};            ///< entries into fast recovery
    uint64_t timeouts{0};                   ///< timeouts with data outstanding

    /// Runs the transfer (starting at 1 s) for 30 s of simulated time.
    void Run()
    {
        Config::SetDefault("ns3::Ns2TcpSocket::TickPhase", StringValue(tickPhase));
        HostPair pair = BuildHostPair(parameters, delay);
        Ptr<SegmentDropModel> dropModel = CreateObject<SegmentDropModel>();
        dropModel->SetTargets(drops);
        DynamicCast<PointToPointNetDevice>(pair.devices.Get(1))->SetReceiveErrorModel(dropModel);
        Ptr<PacketSink> sink = InstallSink(pair.nodes.Get(1));
        const Time start = Seconds(1);
        Ptr<BulkSendApplication> app =
            InstallBulkSender(pair.nodes.Get(0), pair.ifaces.GetAddress(1), bytes, start);
        Simulator::Schedule(start + NanoSeconds(1), [this, app]() { Hook(app); });
        Simulator::Stop(Seconds(31));
        Simulator::Run();
        dropped = dropModel->GetDropped();
        received = sink->GetTotalRx();
        rttSamples = sender ? sender->GetRttSamples() : 0;
        fastRetransmits = sender ? sender->GetFastRetransmits() : 0;
        timeouts = sender ? sender->GetTimeouts() : 0;
        sender = nullptr;
        Simulator::Destroy();
        Config::Reset();
    }

  private:
    void Hook(Ptr<BulkSendApplication> app)
    {
        sender = DynamicCast<TcpFlavorSocket>(app->GetSocket());
        NS_ASSERT(sender);
        sender->TraceConnectWithoutContext("Tx", MakeCallback(&Ns2Scenario::OnTx, this));
        sender->TraceConnectWithoutContext("Rx", MakeCallback(&Ns2Scenario::OnRx, this));
        sender->TraceConnectWithoutContext("RTO", MakeCallback(&Ns2Scenario::OnRto, this));
        sender->TraceConnectWithoutContext("SlowStartThreshold",
                                           MakeCallback(&Ns2Scenario::OnSsthresh, this));
        sender->TraceConnectWithoutContext("CongState", MakeCallback(&Ns2Scenario::OnState, this));
        sender->TraceConnectWithoutContext("RTT", MakeCallback(&Ns2Scenario::OnSrtt, this));
    }

    Sample Now() const
    {
        return {Simulator::Now(),
                m_rto,
                m_ssthresh,
                sender->GetCongestionWindow(),
                sender->GetTimeouts()};
    }

    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() == 0)
        {
            return;
        }
        const uint32_t seq = h.GetSequenceNumber().GetValue();
        sent.push_back({Simulator::Now(), seq, seq >= m_highestSent, p->GetSize()});
        m_highestSent = std::max(m_highestSent, seq + p->GetSize());
    }

    void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (!(h.GetFlags() & TcpHeader::ACK))
        {
            return;
        }
        TcpOptionSack::SackList blocks;
        if (h.HasOption(TcpOption::SACK))
        {
            blocks = DynamicCast<const TcpOptionSack>(h.GetOption(TcpOption::SACK))->GetSackList();
        }
        const uint32_t ack = h.GetAckNumber().GetValue();
        acks.emplace_back(Simulator::Now(), ack, blocks);
        if (ack > m_highestAck)
        {
            m_highestAck = ack;
            // Read the state once the ACK has been processed.
            Simulator::ScheduleNow([this]() { afterNewAck.push_back(Now()); });
        }
    }

    void OnRto(Time, Time rto)
    {
        m_rto = rto;
    }

    void OnSsthresh(uint32_t, uint32_t ssthresh)
    {
        m_ssthresh = ssthresh;
    }

    void OnState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t state)
    {
        states.emplace_back(Simulator::Now(), state);
        Simulator::ScheduleNow([this]() { atStateChange.push_back(Now()); });
    }

    void OnSrtt(Time, Time srtt)
    {
        srtts.push_back(srtt);
    }

    Time m_rto;                 ///< last RTO set
    uint32_t m_ssthresh{0};     ///< last ssthresh
    uint32_t m_highestSent{0};  ///< one past the highest byte sent
    uint32_t m_highestAck{0};   ///< highest ACK number seen
};

/**
 * Base of the ns-2 behaviour tests: runs the scenario with both models; Check() returns ""
 * when ns-2's behaviour was seen, else what differed.
 */
class Ns2BehaviourTestCase : public TestCase
{
  public:
    /**
     * @param name what is checked
     * @param model the sender model to run
     */
    Ns2BehaviourTestCase(const std::string& name, TcpModel model)
        : TestCase(name + (model == TcpModel::NS2 ? "" : " (ns3 model: the check must fail)")),
          m_model(model)
    {
    }

  protected:
    /// @param s the scenario to set up (parameters.model is set afterwards)
    virtual void Setup(Ns2Scenario& s) = 0;
    /// @param s the scenario after the run @return "" when ns-2's behaviour was seen
    virtual std::string Check(const Ns2Scenario& s) = 0;

  private:
    void DoRun() override
    {
        Ns2Scenario s;
        s.parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), TcpFlavor::VANILLA);
        s.parameters.mss = 1000;
        s.parameters.windowBytes = 64000;
        s.parameters.initialSsthreshBytes = 32000;
        Setup(s);
        s.parameters.model = m_model;
        s.Run();
        NS_TEST_ASSERT_MSG_EQ(s.dropped, s.drops.size(), "the planned drops did not all happen");
        NS_TEST_ASSERT_MSG_EQ(s.received, s.bytes, "transfer incomplete");
        const std::string verdict = Check(s);
        if (m_model == TcpModel::NS2)
        {
            NS_TEST_ASSERT_MSG_EQ(verdict, "", "not ns-2's behaviour");
        }
        else
        {
            NS_TEST_ASSERT_MSG_NE(verdict, "", "the check does not tell ns-3's sender apart");
        }
    }

    TcpModel m_model; ///< model run
};

/// Vanilla with window 15 and segment 40 lost twice: two timeouts in a row.
class DoubleTimeoutTestCase : public Ns2BehaviourTestCase
{
  public:
    using Ns2BehaviourTestCase::Ns2BehaviourTestCase;

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.windowBytes = 15000; // wnd_ = 15 packets binds: cwnd grows past it
        s.parameters.initialSsthreshBytes = 64000;
        s.drops = {SegmentSeq(40), SegmentSeq(40)};
        s.bytes = 100000;
    }

    /// @return the first state sample after an ACK of new data with @p timeouts timeouts done
    static const Ns2Scenario::Sample* FirstNewAckAfter(const Ns2Scenario& s, uint64_t timeouts)
    {
        for (const auto& sample : s.afterNewAck)
        {
            if (sample.timeouts == timeouts)
            {
                return &sample;
            }
        }
        return nullptr;
    }
};

/// Karn: the backoff survives new ACKs until a segment sent after the timeout is timed.
class BackoffKeptTestCase : public DoubleTimeoutTestCase
{
  public:
    explicit BackoffKeptTestCase(TcpModel model)
        : DoubleTimeoutTestCase("backoff kept across a new ACK until a post-timeout segment is "
                                "timed",
                                model)
    {
    }

  protected:
    std::string Check(const Ns2Scenario& s) override
    {
        const Ns2Scenario::Sample* before = nullptr;
        for (const auto& sample : s.afterNewAck)
        {
            if (sample.timeouts == 0)
            {
                before = &sample;
            }
        }
        const Ns2Scenario::Sample* after = FirstNewAckAfter(s, 2);
        if (!before || !after)
        {
            return "expected ACKs before the timeouts and after the second";
        }
        std::ostringstream why;
        // The ACK of the twice-retransmitted segment is new, but nothing sent after the
        // timeouts is timed yet: the RTO keeps its backoff of 4.
        if (after->rto != before->rto * 4)
        {
            why << "RTO after the first new ACK " << after->rto.As(Time::MS) << ", expected 4 x "
                << before->rto.As(Time::MS);
        }
        if (s.afterNewAck.back().rto >= before->rto * 2)
        {
            why << "; backoff never ended (" << s.afterNewAck.back().rto.As(Time::MS) << ")";
        }
        return why.str();
    }
};

/**
 * ssthresh = max(floor(min(cwnd, wnd) / 2), 2) packets on every loss. Vanilla sends 60
 * segments and the last is lost twice: at the first timeout cwnd is 60 packets but only that
 * segment is in flight (ns-3 halves the flight size), at the second cwnd is 1.
 */
class SsthreshPacketsTestCase : public DoubleTimeoutTestCase
{
  public:
    explicit SsthreshPacketsTestCase(TcpModel model)
        : DoubleTimeoutTestCase("ssthresh after a loss is max(min(cwnd, wnd) half, 2) packets",
                                model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.initialSsthreshBytes = 64000;
        s.drops = {SegmentSeq(59), SegmentSeq(59)};
        s.bytes = 60000;
    }

    std::string Check(const Ns2Scenario& s) override
    {
        const Ns2Scenario::Sample* first = nullptr;
        const Ns2Scenario::Sample* second = nullptr;
        for (const auto& sample : s.atStateChange)
        {
            first = !first && sample.timeouts == 1 ? &sample : first;
            second = !second && sample.timeouts == 2 ? &sample : second;
        }
        if (!first || !second)
        {
            return "expected two timeouts";
        }
        std::ostringstream why;
        // cwnd = 1 + 59 new ACKs in slow start = 60 packets < wnd = 64.
        if (first->ssthresh != 30000)
        {
            why << "ssthresh after the 1st timeout " << first->ssthresh << " B, expected 30000; ";
        }
        if (second->ssthresh != 2000)
        {
            why << "ssthresh after the 2nd timeout " << second->ssthresh << " B, expected 2000";
        }
        return why.str();
    }
};

/// A loss-free transfer: ns-2 times one segment per round trip.
class OneTimedSegmentTestCase : public Ns2BehaviourTestCase
{
  public:
    explicit OneTimedSegmentTestCase(TcpModel model)
        : Ns2BehaviourTestCase("one timed segment per RTT", model)
    {
    }

  protected:
    void Setup(Ns2Scenario&) override
    {
    }

    std::string Check(const Ns2Scenario& s) override
    {
        // 200 segments take about 12 round trips (6 of slow start to 32, then 32-38 a round).
        const uint64_t samples = s.rttSamples;
        if (samples < 6 || samples > 16)
        {
            return "RTT samples " + std::to_string(samples) + ", expected one per round trip";
        }
        return "";
    }
};

/// RTT samples count tick boundaries crossed, not the rounded-up duration.
class TickBoundaryTestCase : public Ns2BehaviourTestCase
{
  public:
    explicit TickBoundaryTestCase(TcpModel model)
        : Ns2BehaviourTestCase("RTT samples count tick boundaries", model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        // RTT 120 ms; one segment sent at 1.12 s (after the handshake), ACKed at 1.24 s: one
        // tick boundary (1.2 s) lies between, so ns-2 samples 1 tick where rounding up gives 2.
        s.delay = MilliSeconds(60);
        s.bytes = 1000;
    }

    std::string Check(const Ns2Scenario& s) override
    {
        if (s.srtts.empty() || s.srtts.back() != MilliSeconds(100))
        {
            return "srtt " + (s.srtts.empty() ? std::string("none")
                                                : std::to_string(s.srtts.back().GetMilliSeconds())) +
                   " ms, expected one tick";
        }
        return "";
    }
};

/**
 * Three losses in one window (segments 100, 103, 106) with a window of 31 packets, so that
 * ssthresh = 15 packets, where ns-3's flight-size rule gives 15.5.
 */
class ThreeLossTestCase : public Ns2BehaviourTestCase
{
  public:
    /**
     * @param name what is checked
     * @param flavor flavor run
     * @param model model run
     */
    ThreeLossTestCase(const std::string& name, TcpFlavor flavor, TcpModel model)
        : Ns2BehaviourTestCase(name, model),
          m_flavor(flavor)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.flavor = m_flavor;
        s.parameters.windowBytes = 31000;
        s.drops = {SegmentSeq(100), SegmentSeq(103), SegmentSeq(106)};
    }

    /// @return the time of the first change to @p state, or a negative time
    static Time FirstState(const Ns2Scenario& s, TcpSocketState::TcpCongState_t state,
                           Time after = Seconds(0))
    {
        for (const auto& [t, st] : s.states)
        {
            if (st == state && t >= after)
            {
                return t;
            }
        }
        return Seconds(-1);
    }

    /// @return the state sampled right after the change at @p t
    static const Ns2Scenario::Sample* SampleAt(const Ns2Scenario& s, Time t)
    {
        for (const auto& sample : s.atStateChange)
        {
            if (sample.time == t)
            {
                return &sample;
            }
        }
        return nullptr;
    }

    TcpFlavor m_flavor; ///< flavor run
};

/// Reno: fast retransmit, then leaves recovery on the first (partial) new ACK.
class RenoExitTestCase : public ThreeLossTestCase
{
  public:
    explicit RenoExitTestCase(TcpModel model)
        : ThreeLossTestCase("reno leaves recovery as ns-2's Reno", TcpFlavor::RENO, model)
    {
    }

  protected:
    std::string Check(const Ns2Scenario& s) override
    {
        const Time enter = FirstState(s, TcpSocketState::CA_RECOVERY);
        const Time exit = FirstState(s, TcpSocketState::CA_OPEN, enter);
        const Ns2Scenario::Sample* in = SampleAt(s, enter);
        const Ns2Scenario::Sample* out = SampleAt(s, exit);
        if (enter.IsNegative() || exit.IsNegative() || !in || !out)
        {
            return "no fast recovery";
        }
        std::ostringstream why;
        const double rtts = (exit - enter).GetSeconds() / BASE_RTT.GetSeconds();
        if (rtts < 0.9 || rtts > 1.5)
        {
            why << "left recovery after " << rtts << " RTT, expected 1; ";
        }
        if (in->ssthresh != 15000)
        {
            why << "ssthresh " << in->ssthresh << " B, expected 15 packets; ";
        }
        // Deflated to cwnd = ssthresh, then opencwnd(): + 1/cwnd.
        const auto expectedCwnd = static_cast<uint32_t>((15 + 1.0 / 15) * 1000);
        if (out->cwnd != expectedCwnd)
        {
            why << "cwnd after recovery " << out->cwnd << " B, expected " << expectedCwnd << "; ";
        }
        if (s.afterNewAck.back().timeouts < 1)
        {
            why << "the other losses did not wait for a timeout";
        }
        return why.str();
    }
};

/**
 * NewReno with a 10 ms tick and a 20 ms floor, so the RTO (about 60-90 ms) is shorter than the
 * two round trips (100 ms) between the first and last partial ACK: without a timer restart on
 * every partial ACK it would fire.
 */
class NewRenoPartialAckTestCase : public ThreeLossTestCase
{
  public:
    explicit NewRenoPartialAckTestCase(TcpModel model)
        : ThreeLossTestCase("newreno recovers 3 losses in 3 RTTs, timer restarted on each "
                            "partial ACK",
                            TcpFlavor::NEWRENO,
                            model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        ThreeLossTestCase::Setup(s);
        s.parameters.tick = MilliSeconds(10);
        s.parameters.minRto = MilliSeconds(20);
    }

    std::string Check(const Ns2Scenario& s) override
    {
        const Time enter = FirstState(s, TcpSocketState::CA_RECOVERY);
        const Time exit = FirstState(s, TcpSocketState::CA_OPEN, enter);
        const Ns2Scenario::Sample* in = SampleAt(s, enter);
        if (enter.IsNegative() || exit.IsNegative() || !in)
        {
            return "no fast recovery";
        }
        std::ostringstream why;
        const double rtts = (exit - enter).GetSeconds() / BASE_RTT.GetSeconds();
        if (rtts < 2.5 || rtts > 3.5)
        {
            why << "recovery took " << rtts << " RTT, expected 3; ";
        }
        if (s.afterNewAck.back().timeouts != 0)
        {
            why << "timed out in recovery; ";
        }
        if (in->ssthresh != 15000)
        {
            why << "ssthresh " << in->ssthresh << " B, expected 15 packets; ";
        }
        // newreno_changes_: in recovery, one new segment per two duplicate ACKs.
        uint32_t dupacks = 0;
        uint32_t lastAck = 0;
        for (const auto& [t, ack, blocks] : s.acks)
        {
            if (t > enter && t < exit && ack == lastAck)
            {
                ++dupacks;
            }
            lastAck = ack;
        }
        uint32_t newSegments = 0;
        for (const auto& segment : s.sent)
        {
            newSegments += segment.isNew && segment.time > enter && segment.time < exit ? 1 : 0;
        }
        if (newSegments > dupacks / 2 + 1)
        {
            why << newSegments << " new segments for " << dupacks << " duplicate ACKs";
        }
        return why.str();
    }
};

/**
 * SACK with segments 100 and 120 lost: once a SACK covers 121, hole 120 goes out before any
 * new data (ns-3's RFC 6675 waits until three segments above it are SACKed).
 */
class SackHolesFirstTestCase : public Ns2BehaviourTestCase
{
  public:
    explicit SackHolesFirstTestCase(TcpModel model)
        : Ns2BehaviourTestCase("sack retransmits holes before new data", model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.flavor = TcpFlavor::SACK;
        s.drops = {SegmentSeq(100), SegmentSeq(120)};
    }

    std::string Check(const Ns2Scenario& s) override
    {
        Time sacked = Seconds(-1);
        for (const auto& [t, ack, blocks] : s.acks)
        {
            for (const auto& [begin, end] : blocks)
            {
                if (sacked.IsNegative() && begin.GetValue() <= SegmentSeq(121) &&
                    end.GetValue() > SegmentSeq(121))
                {
                    sacked = t;
                }
            }
        }
        Time resent = Seconds(-1);
        for (const auto& segment : s.sent)
        {
            if (!segment.isNew && segment.seq == SegmentSeq(120) && resent.IsNegative())
            {
                resent = segment.time;
            }
        }
        if (sacked.IsNegative() || resent.IsNegative())
        {
            return "segment 121 never SACKed or 120 never resent";
        }
        uint32_t newFirst = 0;
        for (const auto& segment : s.sent)
        {
            newFirst += segment.isNew && segment.time >= sacked && segment.time < resent ? 1 : 0;
        }
        if (newFirst > 0)
        {
            return std::to_string(newFirst) + " new segments went out before hole 120";
        }
        return "";
    }
};

/**
 * Sack1's send_much() resends holes only while the application has data not yet sent
 * (t_seqno_ < curseq_, tcp-sack1.cc 1998 to 2.1b8a). The last 10 segments of a 100-segment
 * transfer lose segments 90 and 93: the third duplicate ACK resends 90, but with all data sent
 * hole 93 waits for the timeout; ns-3's SACK recovery resends it at once.
 */
class SackHoleAfterLastSegmentTestCase : public Ns2BehaviourTestCase
{
  public:
    explicit SackHoleAfterLastSegmentTestCase(TcpModel model)
        : Ns2BehaviourTestCase("sack resends no further hole once all data is sent", model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.flavor = TcpFlavor::SACK;
        // cwnd about 14 at the loss: pipe (cwnd - 3) falls below the halved cwnd before the
        // duplicate ACKs run out, so without the gate hole 93 would go out in recovery.
        s.parameters.initialSsthreshBytes = 8000;
        s.bytes = 100000;
        s.drops = {SegmentSeq(90), SegmentSeq(93)};
    }

    std::string Check(const Ns2Scenario& s) override
    {
        if (s.fastRetransmits != 1)
        {
            return std::to_string(s.fastRetransmits) + " fast retransmits, expected 1";
        }
        if (s.timeouts != 1)
        {
            return std::to_string(s.timeouts) + " timeouts: hole 93 was resent in recovery";
        }
        return "";
    }
};

/**
 * dupack_action()'s "recovered" is highest_ack_ > recover_: duplicate ACKs of the recovery
 * point itself start no fast retransmit. NewReno, window 15 packets: segment 40 is lost, the
 * recovery point is 55 (segments 40-54 were out), recovery sends 55-59 one per two duplicate
 * ACKs; 55 is lost too, so once the full ACK (55) ends recovery, 56-59 bring duplicate ACKs of
 * 55: ns-2 waits for the timer. Run on the ns2 model only: ns-3's sender waits too.
 */
class DupAcksAtRecoveryPointTestCase : public Ns2BehaviourTestCase
{
  public:
    explicit DupAcksAtRecoveryPointTestCase(TcpModel model)
        : Ns2BehaviourTestCase("no fast retransmit on duplicate ACKs of the recovery point", model)
    {
    }

  protected:
    void Setup(Ns2Scenario& s) override
    {
        s.parameters.flavor = TcpFlavor::NEWRENO;
        s.parameters.windowBytes = 15000;
        s.parameters.initialSsthreshBytes = 64000;
        s.bytes = 100000;
        s.drops = {SegmentSeq(40), SegmentSeq(55)};
    }

    std::string Check(const Ns2Scenario& s) override
    {
        if (s.fastRetransmits != 1 || s.timeouts != 1)
        {
            return std::to_string(s.fastRetransmits) + " fast retransmits and " +
                   std::to_string(s.timeouts) + " timeouts, expected 1 and 1";
        }
        return "";
    }
};

/**
 * FastRetransmitGuard (ns-2's bug_fix_, satnet's --fastRetransmitGuard): the same losses with
 * the guard on and off. Reno loses segments 100, 103 and 106 of a 31-packet window: it
 * fast-retransmits 100 and leaves recovery on the partial ACK of 103; the segments it sent in
 * recovery then bring three duplicate ACKs of 103. With the guard they wait for the timer;
 * without it they trigger a second fast retransmit in the same window, which halves ssthresh
 * again (15 to 7 packets) before any timeout. NewReno loses 40 and 55 of a 15-packet window:
 * 55 lies just past the recovery point, so its duplicate ACKs are those of the recovery point,
 * which the guard leaves to the timer.
 */
class FastRetransmitGuardTestCase : public TestCase
{
  public:
    /**
     * @param flavor reno or newreno
     * @param guard the guard on or off
     */
    FastRetransmitGuardTestCase(TcpFlavor flavor, bool guard)
        : TestCase(ToString(flavor) + (guard ? " with" : " without") +
                   " the guard against repeated fast retransmits"),
          m_flavor(flavor),
          m_guard(guard)
    {
    }

  private:
    void DoRun() override
    {
        Ns2Scenario s;
        s.parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), m_flavor);
        s.parameters.model = TcpModel::NS2;
        s.parameters.mss = 1000;
        s.parameters.fastRetransmitGuard = m_guard;
        const bool reno = m_flavor == TcpFlavor::RENO;
        if (reno)
        {
            s.parameters.windowBytes = 64000;
            s.parameters.initialSsthreshBytes = 32000;
            s.drops = {SegmentSeq(100), SegmentSeq(103), SegmentSeq(106)};
        }
        else
        {
            s.parameters.windowBytes = 15000;
            s.parameters.initialSsthreshBytes = 64000;
            s.bytes = 100000;
            s.drops = {SegmentSeq(40), SegmentSeq(55)};
        }
        s.Run();
        NS_TEST_ASSERT_MSG_EQ(s.dropped, s.drops.size(), "the planned drops did not all happen");
        NS_TEST_ASSERT_MSG_EQ(s.received, s.bytes, "transfer incomplete");

        // Each entry into fast recovery, with the state right after it.
        std::vector<const Ns2Scenario::Sample*> entries;
        for (const auto& [t, state] : s.states)
        {
            if (state != TcpSocketState::CA_RECOVERY)
            {
                continue;
            }
            for (const auto& sample : s.atStateChange)
            {
                if (sample.time == t)
                {
                    entries.push_back(&sample);
                    break;
                }
            }
        }
        NS_TEST_ASSERT_MSG_EQ(entries.size(), s.fastRetransmits, "one state change per entry");
        std::clog << GetName() << ": " << s.fastRetransmits << " fast retransmits, ssthresh";
        for (const auto* entry : entries)
        {
            std::clog << " " << entry->ssthresh << " B";
        }
        std::clog << ", " << s.timeouts << " timeouts" << std::endl;
        if (m_guard)
        {
            NS_TEST_EXPECT_MSG_EQ(s.fastRetransmits, 1, "one fast retransmit");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(s.timeouts, 1, "the other losses wait for the timer");
            return;
        }
        NS_TEST_ASSERT_MSG_GT_OR_EQ(entries.size(), 2, "a second fast retransmit");
        NS_TEST_EXPECT_MSG_EQ(entries[1]->timeouts, 0, "the second before any timeout");
        // Halved again: cwnd = ssthresh (+ 1/cwnd) after the first, window floor(cwnd).
        const uint32_t first = entries[0]->ssthresh / 1000;
        NS_TEST_EXPECT_MSG_EQ(entries[1]->ssthresh, std::max(first / 2, 2U) * 1000, "halved again");
        if (!reno)
        {
            NS_TEST_EXPECT_MSG_EQ(s.timeouts, 0, "no loss waits for the timer");
        }
    }

    TcpFlavor m_flavor; ///< flavor run
    bool m_guard;       ///< FastRetransmitGuard
};

/**
 * ByteWindow (satnet's --cwndUnit): a loss-free 200-segment transfer of whole 1000-byte
 * segments in congestion avoidance from the start (ssthresh 4 packets). cwnd grows by 1/cwnd
 * packet per ACK either way; counted in whole packets the sender only ever sends whole
 * segments, counted in bytes it sends the fraction the last ACK added as a segment of its own:
 * segments below one MSS mid-file, after most ACKs.
 */
class ByteWindowTestCase : public TestCase
{
  public:
    /// @param byteWindow the window counted in bytes, else in packets
    explicit ByteWindowTestCase(bool byteWindow)
        : TestCase(std::string("segments below one MSS mid-file: ") +
                   (byteWindow ? "some under the byte window" : "none under the packet window")),
          m_byteWindow(byteWindow)
    {
    }

  private:
    void DoRun() override
    {
        Ns2Scenario s;
        s.parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), TcpFlavor::NEWRENO);
        s.parameters.model = TcpModel::NS2;
        s.parameters.mss = 1000;
        s.parameters.windowBytes = 64000;
        s.parameters.initialSsthreshBytes = 4000;
        s.parameters.byteWindow = m_byteWindow;
        s.Run();
        NS_TEST_ASSERT_MSG_EQ(s.received, s.bytes, "transfer incomplete");
        uint32_t small = 0;
        uint32_t segments = 0;
        for (const auto& sent : s.sent)
        {
            NS_TEST_ASSERT_MSG_EQ(sent.isNew, true, "no loss, no retransmission");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(sent.size, 1000, "no segment above the MSS");
            ++segments;
            const bool last = sent.seq + sent.size == 1 + s.bytes;
            small += sent.size < 1000 && !last ? 1 : 0;
        }
        std::clog << GetName() << ": " << small << " of " << segments
                  << " segments below one MSS mid-file" << std::endl;
        if (!m_byteWindow)
        {
            NS_TEST_EXPECT_MSG_EQ(small, 0, "whole segments only");
            NS_TEST_EXPECT_MSG_EQ(segments, 200, "200 whole segments");
            return;
        }
        // A small segment after most ACKs: over a third of the segments sent are small.
        NS_TEST_EXPECT_MSG_GT(3 * small, segments, "small segments after most ACKs");
    }

    bool m_byteWindow; ///< ByteWindow
};

} // namespace

/// ns-2.1b3 sender behaviours (Ns2TcpSocket), each also run on the ns3 model as a control.
/**
 * ns-2's timer keeps running once everything is acknowledged; expiring with nothing
 * outstanding it sets cwnd to 1 (slow_start_restart_, restart_bugfix_). A sender sends 30
 * segments, is idle for 2 s (far longer than the RTO), then sends 30 more: with the restart the
 * second burst opens with one segment; without it (ns2 with SlowStartRestart off, and ns-3's
 * sender) the whole window of the first burst goes out at once.
 */
class IdleRestartTestCase : public TestCase
{
  public:
    /**
     * @param model the sender model
     * @param restart the SlowStartRestart setting (ns2 only)
     */
    IdleRestartTestCase(TcpModel model, bool restart)
        : TestCase(std::string("idle restart: ") + (model == TcpModel::NS2 ? "ns2" : "ns3") +
                   (restart ? "" : ", SlowStartRestart off")),
          m_model(model),
          m_restart(restart)
    {
    }

  private:
    void DoRun() override
    {
        TcpParameters parameters =
            TcpParameters::ForLink(LinkPreset::Get("wan"), TcpFlavor::RENO);
        parameters.model = m_model;
        parameters.slowStartRestart = m_restart;
        parameters.mss = 1000;
        parameters.windowBytes = 64000;
        parameters.initialSsthreshBytes = 64000;
        HostPair pair = BuildHostPair(parameters);
        Ptr<PacketSink> sink = InstallSink(pair.nodes.Get(1));
        Ptr<Socket> socket =
            Socket::CreateSocket(pair.nodes.Get(0), TcpFlavorSocketFactory::GetTypeId());
        Ptr<TcpFlavorSocket> sender = DynamicCast<TcpFlavorSocket>(socket);
        std::vector<Time> sent;
        sender->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(
                +[](std::vector<Time>* log,
                    Ptr<const Packet> p,
                    const TcpHeader&,
                    Ptr<const TcpSocketBase>) {
                    if (p->GetSize() > 0)
                    {
                        log->push_back(Simulator::Now());
                    }
                })
                .Bind(&sent));
        Simulator::Schedule(Seconds(1), [&]() {
            socket->Bind();
            socket->Connect(InetSocketAddress(pair.ifaces.GetAddress(1), PORT));
        });
        const Time second = Seconds(3.5);
        Simulator::Schedule(Seconds(1.5), [&]() { socket->Send(Create<Packet>(30000)); });
        Simulator::Schedule(second, [&]() { socket->Send(Create<Packet>(30000)); });
        Simulator::Stop(Seconds(10));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), 60000, "transfer incomplete");
        NS_TEST_ASSERT_MSG_EQ(sent.size(), 60, "expected 60 segments, none lost");
        // Segments of the second burst sent at its start (within 1 ms, before any of its ACKs).
        const auto burst = std::count_if(sent.begin(), sent.end(), [second](Time t) {
            return t >= second && t < second + MilliSeconds(1);
        });
        const uint64_t restarts = sender->GetIdleRestarts();
        if (m_model == TcpModel::NS2 && m_restart)
        {
            NS_TEST_ASSERT_MSG_EQ(burst, 1, "the second burst must open with cwnd = 1");
            // The timer keeps firing every RTO while idle: the 2 s gap holds several expiries.
            NS_TEST_ASSERT_MSG_GT(restarts, 1, "the idle timer did not expire");
        }
        else
        {
            NS_TEST_ASSERT_MSG_GT(burst, 20, "without the restart the window of burst 1 is kept");
            NS_TEST_ASSERT_MSG_EQ(restarts, 0, "no idle restart expected");
        }
        Simulator::Destroy();
    }

    TcpModel m_model; ///< model run
    bool m_restart;   ///< SlowStartRestart
};

/**
 * The first slow start under each policy of Ns2TcpSocket::SlowStart, on a path with a receiver
 * that ACKs every other segment (d = 2 under stcp): after each new ACK covering k segments,
 * cwnd (packets) must have grown by exactly 1 (stcp), min(k, 2) (bc) or min(k, 2) / d(W) with
 * d(W) = 1 + (W - 1) / (W_th - 1) (dbc, d_max = 2), W the window before the ACK, while below
 * W_th = 11; then by 1/W. Barakat & Altman (2000), sec. 4-5, as docs/studies/barakat.md reads
 * them. With a loss (Vanilla, segment 40 lost once, so a timeout): after the timeout every slow
 * start is stcp's +1, even for the ACK that covers the segments resent by go-back-N. A policy
 * ignored (stcp's +1), or kept after the timeout, fails the check.
 */
class SlowStartPolicyTestCase : public TestCase
{
  public:
    /**
     * @param policy the SlowStart attribute's value: "stcp", "bc" or "dbc"
     * @param withLoss lose segment 40 once (Vanilla: found by timeout)
     */
    SlowStartPolicyTestCase(const std::string& policy, bool withLoss)
        : TestCase("slow start " + policy + (withLoss ? ", then a timeout: stcp after it" : "")),
          m_policy(policy),
          m_withLoss(withLoss)
    {
    }

  private:
    /// The sender's state after a new ACK.
    struct Step
    {
        uint32_t k;        ///< segments the ACK covered
        double cwnd;       ///< cwnd afterwards, packets
        uint32_t ssthresh; ///< ssthresh afterwards, packets
        uint64_t timeouts; ///< timeouts so far
    };

    /**
     * @param k segments the ACK covers @param w cwnd before it @param wth ssthresh
     * @param first in the first slow start @return the increase the spec gives
     */
    double Expected(uint32_t k, double w, double wth, bool first) const
    {
        if (w >= wth)
        {
            return 1.0 / w;
        }
        const double counted = std::min<uint32_t>(k, 2);
        if (first && m_policy == "bc")
        {
            return counted;
        }
        if (first && m_policy == "dbc")
        {
            return counted / (1 + (w - 1) / (INITIAL_SSTHRESH - 1));
        }
        return 1;
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::Ns2TcpSocket::SlowStart", StringValue(m_policy));
        TcpParameters parameters = TcpParameters::ForLink(
            LinkPreset::Get("wan"), m_withLoss ? TcpFlavor::VANILLA : TcpFlavor::RENO);
        parameters.model = TcpModel::NS2;
        parameters.mss = 1000;
        parameters.windowBytes = 64000;
        parameters.initialSsthreshBytes = INITIAL_SSTHRESH * 1000;
        HostPair pair = BuildHostPair(parameters);
        Ptr<SegmentDropModel> dropModel = CreateObject<SegmentDropModel>();
        if (m_withLoss)
        {
            dropModel->SetTargets({SegmentSeq(40)});
        }
        DynamicCast<PointToPointNetDevice>(pair.devices.Get(1))->SetReceiveErrorModel(dropModel);
        Ptr<PacketSink> sink = InstallSink(pair.nodes.Get(1));
        // Delayed ACKs at the receiver: the accepted socket inherits the listener's count.
        Simulator::Schedule(Seconds(0.5), [sink]() {
            sink->GetListeningSocket()->SetAttribute("DelAckCount", UintegerValue(2));
        });
        Ptr<BulkSendApplication> app =
            InstallBulkSender(pair.nodes.Get(0), pair.ifaces.GetAddress(1), 100000, Seconds(1));
        Simulator::Schedule(Seconds(1) + NanoSeconds(1), [this, app]() {
            m_sender = DynamicCast<Ns2TcpSocket>(app->GetSocket());
            NS_ASSERT(m_sender);
            m_sender->TraceConnectWithoutContext(
                "Rx",
                MakeCallback(&SlowStartPolicyTestCase::OnRx, this));
        });
        Simulator::Stop(Seconds(30));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), 100000, "transfer incomplete");
        NS_TEST_ASSERT_MSG_EQ(dropModel->GetDropped(), m_withLoss ? 1 : 0, "planned drops");
        NS_TEST_ASSERT_MSG_EQ(m_sender->GetTimeouts(), m_withLoss ? 1 : 0, "timeouts");
        NS_TEST_ASSERT_MSG_EQ(m_sender->GetFastRetransmits(), 0, "fast retransmits");
        NS_TEST_ASSERT_MSG_GT(m_steps.size(), 20, "too few ACKs");
        const auto covering2 = std::count_if(m_steps.begin(), m_steps.end(), [](const Step& st) {
            return st.k == 2;
        });
        NS_TEST_ASSERT_MSG_GT(covering2, 10, "the receiver must ACK every other segment");
        double w = 1; // the initial window
        uint32_t wth = INITIAL_SSTHRESH;
        uint64_t timeouts = 0;
        bool afterTimeoutChecked = false;
        for (size_t i = 0; i < m_steps.size(); ++i)
        {
            const Step& st = m_steps[i];
            if (st.timeouts > timeouts)
            {
                w = 1; // the timeout before this ACK set cwnd to 1 and a new ssthresh
                wth = st.ssthresh;
                timeouts = st.timeouts;
                afterTimeoutChecked = st.k > 2;
            }
            const double expected = w + Expected(st.k, w, wth, timeouts == 0);
            NS_TEST_ASSERT_MSG_EQ_TOL(st.cwnd,
                                      expected,
                                      1e-9,
                                      "cwnd after ACK " << i << " covering " << st.k
                                                        << " segments, from " << w
                                                        << ", timeouts " << timeouts);
            w = st.cwnd;
            wth = st.ssthresh;
        }
        if (m_withLoss)
        {
            // go-back-N's first new ACK covers the lost segment and those behind it.
            NS_TEST_ASSERT_MSG_EQ(afterTimeoutChecked, true, "no ACK of k > 2 after the timeout");
        }
        m_sender = nullptr;
        Simulator::Destroy();
        Config::Reset();
    }

    void OnRx(Ptr<const Packet>, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        const uint32_t ack = h.GetAckNumber().GetValue();
        if (!(h.GetFlags() & TcpHeader::ACK) || ack <= m_highestAck)
        {
            return;
        }
        const uint32_t k = (ack - m_highestAck + 999) / 1000;
        m_highestAck = ack;
        // Read the state once the ACK has been processed.
        Simulator::ScheduleNow([this, k]() {
            m_steps.push_back({k,
                               m_sender->GetCwndPackets(),
                               m_sender->GetSsthreshPackets(),
                               m_sender->GetTimeouts()});
        });
    }

    static constexpr uint32_t INITIAL_SSTHRESH = 11; ///< W_th, packets

    std::string m_policy;        ///< the policy run
    bool m_withLoss;             ///< segment 40 lost once
    Ptr<Ns2TcpSocket> m_sender;  ///< the sender
    uint32_t m_highestAck{1};    ///< highest ACK so far (1: the SYN's)
    std::vector<Step> m_steps;   ///< state after each new ACK
};

class Ns2TcpTestSuite : public TestSuite
{
  public:
    Ns2TcpTestSuite()
        : TestSuite("satnet-tcp-ns2", Type::UNIT)
    {
        for (TcpModel model : {TcpModel::NS2, TcpModel::NS3})
        {
            AddTestCase(new BackoffKeptTestCase(model));
            AddTestCase(new SsthreshPacketsTestCase(model));
            AddTestCase(new OneTimedSegmentTestCase(model));
            AddTestCase(new TickBoundaryTestCase(model));
            AddTestCase(new RenoExitTestCase(model));
            AddTestCase(new NewRenoPartialAckTestCase(model));
            AddTestCase(new SackHolesFirstTestCase(model));
            AddTestCase(new SackHoleAfterLastSegmentTestCase(model));
            AddTestCase(new IdleRestartTestCase(model, true));
        }
        AddTestCase(new IdleRestartTestCase(TcpModel::NS2, false));
        for (const char* policy : {"stcp", "bc", "dbc"})
        {
            AddTestCase(new SlowStartPolicyTestCase(policy, false));
            AddTestCase(new SlowStartPolicyTestCase(policy, true));
        }
        // ns-3's NewReno agrees here (RFC 6582 section 3.2: fast retransmit only when the ACK
        // covers more than recover); the ns2 model before 0.2.0 failed it.
        AddTestCase(new DupAcksAtRecoveryPointTestCase(TcpModel::NS2));
        for (TcpFlavor flavor : {TcpFlavor::RENO, TcpFlavor::NEWRENO})
        {
            AddTestCase(new FastRetransmitGuardTestCase(flavor, true));
            AddTestCase(new FastRetransmitGuardTestCase(flavor, false));
        }
        AddTestCase(new ByteWindowTestCase(false));
        AddTestCase(new ByteWindowTestCase(true));
        // The stress runs of satnet-tcp-flavor on the ns2 model, also with issue 56's readings:
        // no fast retransmit guard, and a window counted in bytes.
        for (TcpFlavor flavor :
             {TcpFlavor::VANILLA, TcpFlavor::RENO, TcpFlavor::NEWRENO, TcpFlavor::SACK})
        {
            for (std::pair<bool, bool> readings :
                 {std::pair{true, false}, std::pair{false, false}, std::pair{true, true}})
            {
                if (flavor == TcpFlavor::VANILLA && !readings.first)
                {
                    continue; // no fast retransmit to guard
                }
                AddTestCase(new FlavorStressTestCase(flavor,
                                                     1000,
                                                     10,
                                                     0.01,
                                                     LINK_DELAY,
                                                     Seconds(20),
                                                     TcpModel::NS2,
                                                     readings));
            }
        }
    }
};

/// Static instance registering the suite.
static Ns2TcpTestSuite g_ns2TcpTestSuite;
