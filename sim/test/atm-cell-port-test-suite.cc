// Tests of the cell-interleaving trunk port (AtmCellPort, --switchModel=cell): cells of frames
// from different inputs interleave, EPD and SD judge a frame at its first cell, an admitted frame
// loses its tail when the buffer fills, and the frame model is left as it was.
#include "helper/atm-dumbbell-helper.h"
#include "model/aal5.h"
#include "model/atm-cell-port.h"
#include "programs/satnet/satnet-config.h"
#include "programs/satnet/satnet-scenario.h"

#include "ns3/inet-socket-address.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/udp-socket-factory.h"

#include <cstdlib>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint16_t kPort = 9;
constexpr uint32_t kUdpIpHeaderBytes = 28;

/// UDP payload whose datagram takes exactly @p cells cells.
uint32_t
PayloadOfCells(uint32_t cells)
{
    return cells * aal5::kCellPayloadBytes - aal5::kLlcSnapBytes - aal5::kTrailerBytes -
           kUdpIpHeaderBytes;
}

/**
 * The two-switch network with UDP from every server to its client: datagrams sent at chosen
 * times, counted and timed where they arrive.
 */
class UdpRig
{
  public:
    explicit UdpRig(const AtmDumbbellParameters& p)
        : network(p),
          received(p.pairs, 0),
          lastArrival(p.pairs)
    {
        for (uint32_t i = 0; i < p.pairs; ++i)
        {
            auto sink = Socket::CreateSocket(network.GetClients().Get(i),
                                             UdpSocketFactory::GetTypeId());
            sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
            sink->SetRecvCallback([this, i](Ptr<Socket> socket) {
                while (socket->Recv())
                {
                    ++received[i];
                    lastArrival[i] = Simulator::Now();
                }
            });
            auto source = Socket::CreateSocket(network.GetServers().Get(i),
                                               UdpSocketFactory::GetTypeId());
            source->Connect(InetSocketAddress(network.GetClientAddress(i), kPort));
            m_sources.push_back(source);
        }
    }

    /// Server @p i sends a datagram of @p cells cells at @p at.
    void SendAt(uint32_t i, Time at, uint32_t cells = 23)
    {
        Ptr<Socket> source = m_sources[i];
        const uint32_t payload = PayloadOfCells(cells);
        Simulator::Schedule(at, [source, payload]() { source->Send(Create<Packet>(payload)); });
    }

    /// @return when a frame of @p cells sent at @p at by an idle server reaches switch 1
    static Time AtSwitch(Time at, uint32_t cells = 23)
    {
        const AtmDumbbellParameters p;
        return at + p.accessRate.CalculateBytesTxTime(cells * aal5::kCellBytes) + p.accessDelay;
    }

    AtmDumbbellHelper network;
    std::vector<uint32_t> received;  //!< datagrams per client
    std::vector<Time> lastArrival;   //!< of the last datagram per client

  private:
    std::vector<Ptr<Socket>> m_sources;
};

/// Parameters of the tests' networks: @p pairs, a buffer of @p cells, cell model.
AtmDumbbellParameters
CellNetwork(uint32_t pairs, uint32_t cells, AtmDropPolicy policy)
{
    AtmDumbbellParameters p;
    p.pairs = pairs;
    p.bufferCells = cells;
    p.dropPolicy = policy;
    p.switchModel = AtmSwitchModel::CELL;
    // 100 kbit/s: the first cell leaves after 4.24 ms, so X only grows in the first ms.
    p.bottleneckRate = DataRate("100kbps");
    return p;
}

/// Records the value of @p get at @p at into @p value.
template <typename Get>
void
ProbeAt(Time at, uint32_t* value, Get get)
{
    Simulator::Schedule(at, [value, get]() { *value = get(); });
}

class InterleavingTestCase : public TestCase
{
  public:
    InterleavingTestCase()
        : TestCase("Two frames arriving at once on two ports interleave cell by cell")
    {
    }

  private:
    /// @return the gap between the two clients' arrivals; fills the port's X, X_1, X_2, Na
    Time Run(AtmSwitchModel model, std::vector<uint32_t>& state)
    {
        AtmDumbbellParameters p;
        p.pairs = 2;
        p.bufferCells = 1000;
        p.switchModel = model;
        UdpRig rig(p);
        rig.SendAt(0, MilliSeconds(1));
        rig.SendAt(1, MilliSeconds(1));
        state.assign(4, 0);
        if (auto port = rig.network.GetBottleneckPort())
        {
            // When the last cells of both have arrived: 22 input cell times after the first.
            const Time at = UdpRig::AtSwitch(MilliSeconds(1)) +
                            p.accessRate.CalculateBytesTxTime(22 * aal5::kCellBytes) +
                            NanoSeconds(1);
            ProbeAt(at, &state[0], [port]() { return port->GetCells(); });
            ProbeAt(at, &state[1], [port]() { return port->GetVcCells(1); });
            ProbeAt(at, &state[2], [port]() { return port->GetVcCells(2); });
            ProbeAt(at, &state[3], [port]() { return port->GetActiveVcs(); });
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(rig.received[0] + rig.received[1], 2, "both frames delivered");
        Simulator::Destroy();
        return Abs(rig.lastArrival[1] - rig.lastArrival[0]);
    }

    void DoRun() override
    {
        const Time cellTime = DataRate("45Mbps").CalculateBytesTxTime(aal5::kCellBytes);
        std::vector<uint32_t> state;
        // Cells A0 B0 A1 B1 ...: the first frame's last cell is the 45th to leave, the second's
        // the 46th, one trunk cell time later.
        const Time cellGap = Run(AtmSwitchModel::CELL, state);
        NS_TEST_EXPECT_MSG_EQ_TOL(cellGap.GetNanoSeconds(),
                                  cellTime.GetNanoSeconds(),
                                  2,
                                  "cell model: the frames finish one cell time apart");
        // 62.3 us after the first cells: 46 arrived, 6 sent (3 of each VC).
        NS_TEST_EXPECT_MSG_EQ(state[0], 40, "X");
        NS_TEST_EXPECT_MSG_EQ(state[1], 20, "X_1");
        NS_TEST_EXPECT_MSG_EQ(state[2], 20, "X_2");
        NS_TEST_EXPECT_MSG_EQ(state[3], 2, "Na");
        // The frame model sends one frame whole, then the other.
        const Time frameGap = Run(AtmSwitchModel::FRAME, state);
        NS_TEST_EXPECT_MSG_EQ_TOL(frameGap.GetNanoSeconds(),
                                  23 * cellTime.GetNanoSeconds(),
                                  23,
                                  "frame model: 23 cell times apart");
    }
};

class EpdFirstCellTestCase : public TestCase
{
  public:
    EpdFirstCellTestCase()
        : TestCase("EPD judges a frame at its first cell: admitted below R, it completes past R")
    {
    }

  private:
    void DoRun() override
    {
        UdpRig rig(CellNetwork(3, 100, AtmDropPolicy::EPD)); // R = 80
        for (int k = 0; k < 3; ++k)
        {
            rig.SendAt(0, Seconds(0)); // 69 cells of VC 1 by 300 us
        }
        const Time b = MicroSeconds(300);
        rig.SendAt(1, b); // first cell at X = 69 <= R
        // 17 input cell times (48.1 us) later X = 69 + 17 = 86 > R: refused.
        rig.SendAt(2, b + MicroSeconds(48));
        auto port = rig.network.GetBottleneckPort();
        uint32_t atSecond = 0;
        uint32_t atEnd = 0;
        ProbeAt(UdpRig::AtSwitch(b + MicroSeconds(48)), &atSecond, [port]() {
            return port->GetCells();
        });
        ProbeAt(MicroSeconds(500), &atEnd, [port]() { return port->GetCells(); });
        Simulator::Stop(Seconds(2));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(atSecond, 86, "X when the third frame's first cell arrives");
        NS_TEST_EXPECT_MSG_EQ(atEnd, 92, "the admitted frame completed past R");
        NS_TEST_EXPECT_MSG_EQ(rig.received[1], 1, "the frame admitted at X = 69 is delivered");
        NS_TEST_EXPECT_MSG_EQ(rig.received[2], 0, "the frame starting at X = 86 is not");
        NS_TEST_EXPECT_MSG_EQ(rig.received[0], 3, "VC 1 delivered");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::EPD_THRESHOLD), 1, "EPD");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedCells(AtmDropReason::EPD_THRESHOLD), 23, "cells");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::PARTIAL), 0, "no partial");
        Simulator::Destroy();
    }
};

class PartialFrameTestCase : public TestCase
{
  public:
    PartialFrameTestCase()
        : TestCase("Frames admitted below R lose their tails when the buffer fills")
    {
    }

  private:
    void DoRun() override
    {
        UdpRig rig(CellNetwork(3, 100, AtmDropPolicy::EPD)); // R = 80
        for (int k = 0; k < 3; ++k)
        {
            rig.SendAt(0, Seconds(0)); // X = 69
        }
        rig.SendAt(1, MicroSeconds(300));   // admitted at X = 69
        rig.SendAt(2, MicroSeconds(301.5)); // admitted at X = 70
        Simulator::Stop(Seconds(2));
        Simulator::Run();

        // Both interleave: X reaches K = 100 after 31 of their 46 cells; nothing leaves before
        // their last cells, so their EOMs find no room either.
        auto port = rig.network.GetBottleneckPort();
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::PARTIAL), 2, "two partial");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedCells(AtmDropReason::PARTIAL), 15, "15 cells lost");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::EPD_THRESHOLD), 0, "no EPD");
        NS_TEST_EXPECT_MSG_EQ(rig.network.GetReassembly()->GetLostFrames(),
                              2,
                              "both are lost at reassembly");
        NS_TEST_EXPECT_MSG_EQ(rig.received[1] + rig.received[2], 0, "neither is delivered");
        NS_TEST_EXPECT_MSG_EQ(rig.received[0], 3, "VC 1 delivered");
        Simulator::Destroy();
    }
};

class EomKeptTestCase : public TestCase
{
  public:
    EomKeptTestCase()
        : TestCase("Partial packet discard keeps the last cell when there is room for it")
    {
    }

  private:
    void DoRun() override
    {
        AtmDumbbellParameters p = CellNetwork(2, 100, AtmDropPolicy::EPD);
        p.bottleneckRate = DataRate("110kbps"); // a cell leaves every 3.85 ms
        UdpRig rig(p);
        for (int k = 0; k < 3; ++k)
        {
            rig.SendAt(0, Seconds(0)); // X = 69
        }
        // 1365 cells, received whole at 4.17 ms (X = 68 then: one cell left at 3.92 ms), enter
        // over 3.86 ms: the 33rd finds the buffer full; the next cell leaves at 7.78 ms, and the
        // room it leaves is there when the last cell arrives at 8.03 ms.
        const uint32_t cells = 1365;
        rig.SendAt(1, MicroSeconds(300), cells);
        auto port = rig.network.GetBottleneckPort();
        uint32_t carried = 0;
        ProbeAt(MicroSeconds(8100), &carried, [port]() { return port->GetVcCells(2); });
        Simulator::Stop(Seconds(2));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(carried, 33, "32 cells and the EOM buffered");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::PARTIAL), 1, "one partial");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedCells(AtmDropReason::PARTIAL),
                              cells - 33,
                              "the cells between lost");
        NS_TEST_EXPECT_MSG_EQ(rig.network.GetReassembly()->GetLostFrames(), 1, "lost at AAL5");
        NS_TEST_EXPECT_MSG_EQ(rig.received[1], 0, "not delivered");
        Simulator::Destroy();
    }
};

/// partialFrames accept: a cut frame's later cells are buffered whenever a cell has left.
class PartialFramesAcceptTestCase : public TestCase
{
  public:
    PartialFramesAcceptTestCase()
        : TestCase("PartialFrames Accept buffers a cut frame's later cells when room frees up")
    {
    }

  private:
    /// What one frame of 1365 cells into an empty 100-cell buffer left behind.
    struct Outcome
    {
        uint64_t lostCells;   //!< cells counted as partial drops
        uint64_t frames;      //!< frames counted as partial
        uint32_t heldAtEom;   //!< cells of the VC buffered just after the EOM cell's arrival
        uint64_t reassembly;  //!< frames lost at the receiver's reassembly
    };

    /// Sends the frame through a port with @p partial and reports what happened.
    static Outcome Run(AtmPartialFrames partial)
    {
        AtmDumbbellParameters p = CellNetwork(1, 100, AtmDropPolicy::EPD);
        p.bottleneckRate = DataRate("1Mbps"); // a cell leaves every 424 us
        p.partialFrames = partial;
        UdpRig rig(p);
        const uint32_t cells = 1365;
        rig.SendAt(0, Seconds(0), cells);
        auto port = rig.network.GetBottleneckPort();
        // Its cells enter 2.8312 us apart from its arrival at the port, which is AtSwitch();
        // the last at 1364 x 2.8312 = 3861.8 us.
        const Time first = UdpRig::AtSwitch(Seconds(0), cells);
        uint32_t held = 0;
        ProbeAt(first + MicroSeconds(3863), &held, [port]() { return port->GetVcCells(1); });
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        Outcome outcome{port->GetDroppedCells(AtmDropReason::PARTIAL),
                        port->GetDroppedFrames(AtmDropReason::PARTIAL),
                        held,
                        rig.network.GetReassembly()->GetLostFrames()};
        Simulator::Destroy();
        return outcome;
    }

    void DoRun() override
    {
        // The buffer is full at the 100th cell (280 us), before the first cell has left (424
        // us): the 101st is the first lost. Then one cell leaves every 424 us: 9 leave while
        // the frame enters (424 x 9 = 3816 us < 3861.8 us).
        const Outcome ppd = Run(AtmPartialFrames::PPD);
        // PPD: the rest is dropped but the EOM, which finds the 9 freed places: 101 kept.
        NS_TEST_EXPECT_MSG_EQ(ppd.lostCells, 1365 - 101, "PPD: all but 100 cells and the EOM");
        NS_TEST_EXPECT_MSG_EQ(ppd.heldAtEom, 100 - 9 + 1, "PPD: the EOM joined 91 cells");
        const Outcome accept = Run(AtmPartialFrames::ACCEPT);
        // Accept: each freed place is taken by the next cell to arrive, a middle one; the EOM,
        // 45.8 us after the 9th departure, finds the buffer full again: 109 kept.
        NS_TEST_EXPECT_MSG_EQ(accept.lostCells, 1365 - 109, "Accept: 9 later cells kept");
        NS_TEST_EXPECT_MSG_EQ(accept.heldAtEom, 100, "Accept: every freed place refilled");
        for (const Outcome& outcome : {ppd, accept})
        {
            NS_TEST_EXPECT_MSG_EQ(outcome.frames, 1, "one partial frame");
            NS_TEST_EXPECT_MSG_EQ(outcome.reassembly, 1, "lost at AAL5 either way");
        }
    }
};

class SelectiveDropFirstCellTestCase : public TestCase
{
  public:
    SelectiveDropFirstCellTestCase()
        : TestCase("SD judges X, X_i and Na at a frame's first cell, with cells interleaving")
    {
    }

  private:
    void DoRun() override
    {
        UdpRig rig(CellNetwork(3, 300, AtmDropPolicy::SD)); // R = 240
        for (int k = 0; k < 11; ++k)
        {
            rig.SendAt(0, Seconds(0)); // X = X_1 = 253 > R by 800 us
        }
        // VC 2 holds nothing: below its share (0 <= 0.8 x 253 / 1), admitted above R.
        rig.SendAt(1, MicroSeconds(800));
        // 30 us later, 11 of VC 2's cells are in: X = 264, Na = 2. VC 1 (253 > 0.8 x 264 / 2)
        // is refused; VC 3 (0) is admitted.
        rig.SendAt(0, MicroSeconds(830));
        rig.SendAt(2, MicroSeconds(830));
        auto port = rig.network.GetBottleneckPort();
        std::vector<uint32_t> state(3, 0);
        const Time at = UdpRig::AtSwitch(MicroSeconds(830)) - NanoSeconds(1);
        ProbeAt(at, &state[0], [port]() { return port->GetCells(); });
        ProbeAt(at, &state[1], [port]() { return port->GetVcCells(2); });
        ProbeAt(at, &state[2], [port]() { return port->GetActiveVcs(); });
        Simulator::Stop(Seconds(5));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(state[0], 264, "X at the two first cells");
        NS_TEST_EXPECT_MSG_EQ(state[1], 11, "VC 2 is mid-frame");
        NS_TEST_EXPECT_MSG_EQ(state[2], 2, "Na");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::SD_SHARE), 1, "one SD drop");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedCells(AtmDropReason::SD_SHARE), 23, "its cells");
        NS_TEST_EXPECT_MSG_EQ(rig.received[0], 11, "VC 1's twelfth frame refused");
        NS_TEST_EXPECT_MSG_EQ(rig.received[1], 1, "VC 2 admitted above R");
        NS_TEST_EXPECT_MSG_EQ(rig.received[2], 1, "VC 3 admitted above R");
        NS_TEST_EXPECT_MSG_EQ(port->GetDroppedFrames(AtmDropReason::PARTIAL), 0, "all fit in K");
        Simulator::Destroy();
    }
};

class FrameModelTestCase : public TestCase
{
  public:
    FrameModelTestCase()
        : TestCase("The frame model keeps its AtmCellQueue trunk ports and no cell port")
    {
    }

  private:
    void DoRun() override
    {
        AtmDumbbellParameters p;
        p.pairs = 2;
        AtmDumbbellHelper frame(p);
        NS_TEST_EXPECT_MSG_EQ(bool(frame.GetBottleneckQueue()), true, "frame: trunk queue");
        NS_TEST_EXPECT_MSG_EQ(bool(frame.GetBottleneckPort()), false, "frame: no cell port");
        NS_TEST_EXPECT_MSG_EQ(frame.GetBottleneckQueue()->GetMaxCells(), 1062, "its K");
        Simulator::Destroy();
        p.switchModel = AtmSwitchModel::CELL;
        AtmDumbbellHelper cell(p);
        NS_TEST_EXPECT_MSG_EQ(bool(cell.GetBottleneckQueue()), false, "cell: no trunk queue");
        NS_TEST_EXPECT_MSG_EQ(cell.GetBottleneckPort()->GetMaxCells(), 1062, "cell: its K");
        Simulator::Destroy();
    }
};

/**
 * The study's network under EPD with a small buffer and little room above R: only the cell model
 * loses frame tails. (With R = 0.8 K the 0.5 RTT buffer leaves 106 cells above R, more than the
 * frames that start together below R bring in these runs: no partial frame in 30 s either way.)
 */
class CongestedWanTestCase : public TestCase
{
  public:
    CongestedWanTestCase()
        : TestCase("WAN, EPD, 0.5 RTT buffer, R = 0.95 K, 10 s: partial frames with cells only")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string model : {"cell", "frame"})
        {
            const satnet::Config config = satnet::Parameters().Parse({"--link=wan",
                                                                      "--drop=epd",
                                                                      "--bufferRtt=0.5",
                                                                      "--epdThreshold=0.95",
                                                                      "--simTime=10",
                                                                      "--switchModel=" + model});
            const auto result = satnet::RunScenario(config);
            const auto* summary = result.Find("summary");
            const uint64_t partial = summary->Find("frames_dropped_partial")->GetUint64();
            const uint64_t lost = summary->Find("frames_lost_reassembly")->GetUint64();
            if (model == "cell")
            {
                NS_TEST_EXPECT_MSG_GT(partial, 0, "cell model: partial frames");
                NS_TEST_EXPECT_MSG_GT(lost, 0, "and lost at reassembly");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(partial, 0, "frame model: none");
            }
        }
    }
};

class AtmCellPortTestSuite : public TestSuite
{
  public:
    AtmCellPortTestSuite()
        : TestSuite("satnet-atm-cell", Type::UNIT)
    {
        AddTestCase(new InterleavingTestCase, Duration::QUICK);
        AddTestCase(new EpdFirstCellTestCase, Duration::QUICK);
        AddTestCase(new PartialFrameTestCase, Duration::QUICK);
        AddTestCase(new EomKeptTestCase, Duration::QUICK);
        AddTestCase(new PartialFramesAcceptTestCase, Duration::QUICK);
        AddTestCase(new SelectiveDropFirstCellTestCase, Duration::QUICK);
        AddTestCase(new FrameModelTestCase, Duration::QUICK);
        AddTestCase(new CongestedWanTestCase, Duration::EXTENSIVE);
    }
};

AtmCellPortTestSuite g_atmCellPortTestSuite;

} // namespace
