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

#include <set>
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
    /// @param seqs sequence numbers of the segments to drop once
    void SetTargets(const std::set<uint32_t>& seqs)
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
        if (copy->GetSize() == 0 || m_targets.erase(tcp.GetSequenceNumber().GetValue()) == 0)
        {
            return false;
        }
        ++m_dropped;
        return true;
    }

    void DoReset() override
    {
    }

    std::set<uint32_t> m_targets; ///< segments still to drop
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
     */
    FlavorStressTestCase(TcpFlavor flavor,
                         uint32_t mss,
                         uint32_t connections,
                         double lossRate,
                         Time delay,
                         Time duration)
        : TestCase(ToString(flavor) + " survives " + std::to_string(2 * connections) +
                   " lossy connections, MSS " + std::to_string(mss) + ", delay " +
                   std::to_string(delay.GetMilliSeconds()) + " ms, " +
                   std::to_string(static_cast<int>(duration.GetSeconds())) + " s"),
          m_flavor(flavor),
          m_mss(mss),
          m_connections(connections),
          m_lossRate(lossRate),
          m_delay(delay),
          m_duration(duration)
    {
    }

  private:
    void DoRun() override
    {
        auto parameters = TcpParameters::ForLink(LinkPreset::Get("wan"), m_flavor);
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
        // The longer runs: satnet-test --suite=satnet-tcp-flavor --fullness=EXTENSIVE
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
