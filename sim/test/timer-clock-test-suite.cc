/*
 * Tests of TcpFlavorSocket's TimerClock (satnet's --timerClock): the clock the retransmission
 * timers expire on.
 *
 * Two connections, each over its own link, start 34 ms apart; every data segment is lost, so
 * each arms its retransmission timer when it sends its first segment and times out one RTO
 * later. The scenario runs once per clock: up to the first timeouts both runs are the same, so
 * the per-connection expiries of the first run give the shared-clock expiries the second must
 * show (rounded up to the tick here, in integer nanoseconds, not by the model's function).
 */
#include "helper/tcp-flavor-helper.h"
#include "model/tcp-flavor-socket-factory.h"
#include "model/tcp-flavor-socket.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/ppp-header.h"
#include "ns3/test.h"

#include <array>
#include <string>

using namespace ns3;

namespace
{

const uint16_t PORT = 5000;
const Time TICK = MilliSeconds(100); //!< TcpParameters' tick, the study's
/// Start of each connection: 34 ms apart, neither on a tick, both within one tick.
const std::array<Time, 2> STARTS{MilliSeconds(1013), MilliSeconds(1047)};

/// Drops every TCP segment that carries data (handshake and ACKs pass).
class DataDropModel : public ErrorModel
{
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
        return copy->GetSize() > 0;
    }

    void DoReset() override
    {
    }
};

/// What one connection did before its first timeout.
struct ConnectionRun
{
    Time armed = Seconds(-1);        //!< its first data segment was sent: the timer armed
    Time firstTimeout = Seconds(-1); //!< its first retransmission timeout fired
};

/**
 * Runs the two connections.
 * @param model the TCP sender
 * @param clock the timers' clock
 * @param minRto the RTO floor
 * @return each connection's arming and first timeout
 */
std::array<ConnectionRun, 2>
RunTwoConnections(TcpModel model, TimerClock clock, Time minRto = TcpParameters().minRto)
{
    TcpParameters tcp;
    tcp.model = model;
    tcp.flavor = TcpFlavor::RENO;
    tcp.timerClock = clock;
    tcp.minRto = minRto;

    std::array<ConnectionRun, 2> runs;
    std::array<Ptr<BulkSendApplication>, 2> senders;
    for (std::size_t i = 0; i < 2; ++i)
    {
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper link;
        link.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
        link.SetChannelAttribute("Delay", StringValue("1ms"));
        NetDeviceContainer devices = link.Install(nodes);
        devices.Get(1)->SetAttribute("ReceiveErrorModel",
                                     PointerValue(CreateObject<DataDropModel>()));
        InternetStackHelper().Install(nodes);
        Ipv4AddressHelper addresses(("10.0." + std::to_string(i) + ".0").c_str(), "255.255.255.0");
        Ipv4InterfaceContainer ifaces = addresses.Assign(devices);
        TcpFlavorHelper(tcp).Install(nodes);

        PacketSinkHelper sink(TcpFlavorSocketFactory::GetTypeId().GetName(),
                              InetSocketAddress(Ipv4Address::GetAny(), PORT));
        sink.Install(nodes.Get(1)).Start(Seconds(0));
        BulkSendHelper bulk(TcpFlavorSocketFactory::GetTypeId().GetName(),
                            InetSocketAddress(ifaces.GetAddress(1), PORT));
        bulk.SetAttribute("MaxBytes", UintegerValue(5000));
        bulk.SetAttribute("SendSize", UintegerValue(1000));
        ApplicationContainer apps = bulk.Install(nodes.Get(0));
        apps.Start(STARTS[i]);
        senders[i] = DynamicCast<BulkSendApplication>(apps.Get(0));

        // The sender's socket exists once the application has started.
        ConnectionRun* run = &runs[i];
        Simulator::Schedule(STARTS[i] + NanoSeconds(1), [run, sender = senders[i]]() {
            Ptr<Socket> socket = sender->GetSocket();
            socket->TraceConnectWithoutContext(
                "Tx",
                Callback<void, Ptr<const Packet>, const TcpHeader&, Ptr<const TcpSocketBase>>(
                    [run](Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>) {
                        if (p->GetSize() > 0 && run->armed.IsNegative())
                        {
                            run->armed = Simulator::Now();
                        }
                    }));
            socket->TraceConnectWithoutContext(
                "Timeouts",
                Callback<void, uint64_t, uint64_t>([run](uint64_t, uint64_t) {
                    if (run->firstTimeout.IsNegative())
                    {
                        run->firstTimeout = Simulator::Now();
                    }
                }));
        });
    }
    Simulator::Stop(Seconds(12));
    Simulator::Run();
    Simulator::Destroy();
    return runs;
}

/// @return @p t rounded up to a multiple of TICK
Time
UpToTick(Time t)
{
    const int64_t tick = TICK.GetNanoSeconds();
    const int64_t ns = t.GetNanoSeconds();
    return NanoSeconds((ns + tick - 1) / tick * tick);
}

/// @return whether @p t is a multiple of TICK
bool
OnTick(Time t)
{
    return t.GetNanoSeconds() % TICK.GetNanoSeconds() == 0;
}

} // namespace

/// Two timers armed at different, non-tick-aligned times: apart on their own clocks, one tick on
/// the shared clock.
class SharedTimerClockTestCase : public TestCase
{
  public:
    /// @param model the TCP sender
    explicit SharedTimerClockTestCase(TcpModel model)
        : TestCase("timers armed 34 ms apart expire apart per connection, on one tick shared (" +
                   ToString(model) + ")"),
          m_model(model)
    {
    }

  private:
    void DoRun() override
    {
        const auto own = RunTwoConnections(m_model, TimerClock::PER_CONNECTION);
        const auto shared = RunTwoConnections(m_model, TimerClock::SHARED);
        for (std::size_t i = 0; i < 2; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(own[i].armed.IsPositive(), true, "connection " << i << " sent");
            NS_TEST_ASSERT_MSG_EQ(own[i].firstTimeout.IsPositive(),
                                  true,
                                  "connection " << i << " timed out");
            NS_TEST_ASSERT_MSG_EQ(shared[i].firstTimeout.IsPositive(),
                                  true,
                                  "connection " << i << " timed out on the shared clock");
            // The premise: timers armed off the ticks, the same way in both runs.
            NS_TEST_EXPECT_MSG_EQ(OnTick(own[i].armed), false, "armed on a tick");
            NS_TEST_EXPECT_MSG_EQ(shared[i].armed, own[i].armed, "armed alike in both runs");
            // Its own clock: exactly one RTO (whole ticks) after it was armed, off the ticks.
            NS_TEST_EXPECT_MSG_EQ(OnTick(own[i].firstTimeout - own[i].armed),
                                  true,
                                  "RTO " << own[i].firstTimeout - own[i].armed);
            NS_TEST_EXPECT_MSG_EQ(OnTick(own[i].firstTimeout), false, "own clock fired on a tick");
            // The shared clock: the first tick at or after that.
            NS_TEST_EXPECT_MSG_EQ(shared[i].firstTimeout,
                                  UpToTick(own[i].firstTimeout),
                                  "connection " << i << " on the shared clock");
        }
        NS_TEST_EXPECT_MSG_NE(own[0].armed, own[1].armed, "armed at different times");
        NS_TEST_EXPECT_MSG_NE(own[0].firstTimeout,
                              own[1].firstTimeout,
                              "own clocks expire apart");
        NS_TEST_EXPECT_MSG_EQ(shared[0].firstTimeout,
                              shared[1].firstTimeout,
                              "the shared clock's timers expire on the same tick");
        NS_TEST_EXPECT_MSG_EQ(OnTick(shared[0].firstTimeout), true, "on a tick");
    }

    TcpModel m_model; //!< the TCP sender
};

/**
 * The BSD combination (satnet's --bsdTimers with a raised --minRto): an RTO floor above the
 * estimate on the shared clock. With a floor of 80 ticks (above the 6 s initial RTO of the ns2
 * model and ns-3's 1 s) each connection's first timeout waits the floor, rounded up to the
 * next tick of the one clock, and both fire on that tick; without the floor they fire earlier.
 */
class BsdTimersTestCase : public TestCase
{
  public:
    /// @param model the TCP sender
    explicit BsdTimersTestCase(TcpModel model)
        : TestCase("an RTO floor on the shared clock: timeouts wait the floor and fire on one "
                   "tick (" +
                   ToString(model) + ")"),
          m_model(model)
    {
    }

  private:
    void DoRun() override
    {
        const Time floor = TICK * 80;
        const auto plain = RunTwoConnections(m_model, TimerClock::SHARED);
        const auto bsd = RunTwoConnections(m_model, TimerClock::SHARED, floor);
        for (std::size_t i = 0; i < 2; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(bsd[i].firstTimeout.IsPositive(),
                                  true,
                                  "connection " << i << " timed out");
            NS_TEST_EXPECT_MSG_EQ(bsd[i].firstTimeout,
                                  UpToTick(bsd[i].armed + floor),
                                  "connection " << i << ": the floor, on the next tick");
            // The premise: without the floor the estimate alone times out sooner.
            NS_TEST_EXPECT_MSG_LT(plain[i].firstTimeout - plain[i].armed,
                                  floor,
                                  "the floor is above the estimate");
        }
        NS_TEST_EXPECT_MSG_EQ(bsd[0].firstTimeout, bsd[1].firstTimeout, "on the same tick");
    }

    TcpModel m_model; //!< the TCP sender
};

/// Tests of the retransmission timers' clock.
class TimerClockTestSuite : public TestSuite
{
  public:
    TimerClockTestSuite()
        : TestSuite("satnet-timer-clock", Type::UNIT)
    {
        for (TcpModel model : {TcpModel::NS2, TcpModel::NS3})
        {
            AddTestCase(new SharedTimerClockTestCase(model), Duration::QUICK);
            AddTestCase(new BsdTimersTestCase(model), Duration::QUICK);
        }
    }
};

/// The suite's only instance.
static TimerClockTestSuite g_timerClockTestSuite;
