// Tests of the ATM layer: AAL5 arithmetic, the UBR+ drop policies of AtmCellQueue, and partial
// frames lost end to end through the two-switch network.
#include "helper/atm-dumbbell-helper.h"
#include "model/aal5.h"
#include "model/atm-cell-queue.h"
#include "model/atm-frame-tag.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

using namespace ns3;

namespace
{

constexpr uint32_t kPppHeaderBytes = 2;
constexpr uint32_t kMss1024Datagram = 1024 + aal5::kTcpIpHeaderBytes;

Ptr<Packet>
MakeFrame(uint32_t vc, uint32_t ipBytes = kMss1024Datagram)
{
    auto packet = Create<Packet>(ipBytes + kPppHeaderBytes);
    packet->AddPacketTag(AtmFrameTag(vc, ipBytes));
    return packet;
}

/// A frame of exactly @p cells cells.
Ptr<Packet>
MakeFrameOfCells(uint32_t vc, uint32_t cells)
{
    return MakeFrame(vc, cells * aal5::kCellPayloadBytes - aal5::kLlcSnapBytes - aal5::kTrailerBytes);
}

Ptr<AtmCellQueue>
MakeQueue(uint32_t cells, AtmDropPolicy policy)
{
    return CreateObjectWithAttributes<AtmCellQueue>("MaxCells",
                                                    UintegerValue(cells),
                                                    "DropPolicy",
                                                    EnumValue(policy),
                                                    "EpdThreshold",
                                                    DoubleValue(0.8),
                                                    "SdZ",
                                                    DoubleValue(0.8));
}

/// Enqueues whole 23-cell frames of @p vc until the queue holds at least @p cells.
void
FillTo(Ptr<AtmCellQueue> queue, uint32_t vc, uint32_t cells)
{
    while (queue->GetCells() < cells)
    {
        NS_ABORT_UNLESS(queue->Enqueue(MakeFrame(vc)));
    }
}

class Aal5ArithmeticTestCase : public TestCase
{
  public:
    Aal5ArithmeticTestCase()
        : TestCase("AAL5 cells and the capacity C of a 45 Mbps cell stream")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(aal5::CellsForSegment(1024), 23, "MSS 1024: 1072 B -> 23 cells");
        NS_TEST_ASSERT_MSG_EQ(aal5::WireBytesForDatagram(1064), 1219, "23 cells = 1219 B");
        NS_TEST_ASSERT_MSG_EQ(aal5::CellsForSegment(9180), 193, "MSS 9180: 9236 B -> 193 cells");
        NS_TEST_ASSERT_MSG_EQ(aal5::WireBytesForDatagram(9220), 10229, "193 cells = 10229 B");
        NS_TEST_ASSERT_MSG_EQ(aal5::CellsForDatagram(40), 2, "an ACK takes 2 cells");
        NS_TEST_ASSERT_MSG_EQ_TOL(aal5::MaxTcpThroughput(45e6, 1024) / 1e6,
                                  37.80,
                                  0.01,
                                  "C for MSS 1024");
        NS_TEST_ASSERT_MSG_EQ_TOL(aal5::MaxTcpThroughput(45e6, 9180) / 1e6,
                                  40.39,
                                  0.01,
                                  "C for MSS 9180");

        // The queue pads each frame to its cells' wire size, link header included.
        auto queue = MakeQueue(1000, AtmDropPolicy::EPD);
        queue->Enqueue(MakeFrame(1));
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 23, "X counts cells");
        NS_TEST_ASSERT_MSG_EQ(queue->Peek()->GetSize(), 1219, "frame padded to 23 x 53 B");
        queue->Dequeue();
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 0, "dequeue releases the cells");
        NS_TEST_ASSERT_MSG_EQ(queue->GetActiveVcs(), 0, "no VC active when empty");
    }
};

class EpdTestCase : public TestCase
{
  public:
    EpdTestCase()
        : TestCase("EPD refuses a new frame above R and lets an accepted frame complete")
    {
    }

  private:
    void DoRun() override
    {
        auto queue = MakeQueue(100, AtmDropPolicy::EPD); // R = 80 cells
        FillTo(queue, 1, 69);                            // 3 frames: 69 cells
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(2)), true, "X = 69 <= R: admitted");
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 92, "the frame in progress completes past R");
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(3)), false, "X = 92 > R: refused");
        NS_TEST_ASSERT_MSG_EQ(queue->GetDroppedFrames(AtmDropReason::EPD_THRESHOLD),
                              1,
                              "counted as an EPD drop");
        NS_TEST_ASSERT_MSG_EQ(queue->GetDroppedCells(AtmDropReason::EPD_THRESHOLD),
                              23,
                              "all its cells refused");
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 92, "nothing of the refused frame buffered");

        // At X = R exactly a new frame is admitted; with 20 cells of room it keeps 20 of 23.
        auto edge = MakeQueue(100, AtmDropPolicy::EPD);
        FillTo(edge, 1, 46);
        edge->Enqueue(MakeFrameOfCells(1, 32));
        NS_TEST_ASSERT_MSG_EQ(edge->GetCells(), 78, "46 + 32 cells");
        edge->Enqueue(MakeFrameOfCells(1, 2));
        NS_TEST_ASSERT_MSG_EQ(edge->GetCells(), 80, "at R exactly");
        NS_TEST_ASSERT_MSG_EQ(edge->Enqueue(MakeFrame(2)), true, "X = R is not above R");
        NS_TEST_ASSERT_MSG_EQ(edge->GetCells(), 100, "the buffer is full");
        NS_TEST_ASSERT_MSG_EQ(edge->GetDroppedCells(AtmDropReason::PARTIAL), 3, "tail of 3 lost");
        AtmFrameTag tag;
        Ptr<const Packet> last;
        while (edge->GetNPackets() > 0)
        {
            last = edge->Dequeue();
        }
        last->PeekPacketTag(tag);
        NS_TEST_ASSERT_MSG_EQ(tag.IsPartial(), true, "the frame is marked partial");
        NS_TEST_ASSERT_MSG_EQ(tag.GetCarriedCells(), 20, "it carries 20 cells");
        NS_TEST_ASSERT_MSG_EQ(last->GetSize(), 20 * aal5::kCellBytes, "and uses 20 cell times");
    }
};

class SelectiveDropTestCase : public TestCase
{
  public:
    SelectiveDropTestCase()
        : TestCase("SD refuses a VC above Z*X over Na and admits a VC below its share")
    {
    }

  private:
    void DoRun() override
    {
        auto queue = MakeQueue(1000, AtmDropPolicy::SD); // R = 800 cells
        FillTo(queue, 1, 800);                           // 35 frames: 805 cells > R
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 805, "X above R");
        NS_TEST_ASSERT_MSG_EQ(queue->GetActiveVcs(), 1, "Na = 1");

        // VC 2 holds 0 <= 0.8 * 805 / 1 cells: below its share, admitted although X > R.
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(2)), true, "VC 2 below its share");
        NS_TEST_ASSERT_MSG_EQ(queue->GetActiveVcs(), 2, "Na = 2");
        NS_TEST_ASSERT_MSG_EQ(queue->GetVcCells(2), 23, "X_2 = 23");

        // VC 1 holds 805 > 0.8 * 828 / 2 = 331.2 cells: refused whole.
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(1)), false, "VC 1 above its share");
        NS_TEST_ASSERT_MSG_EQ(queue->GetDroppedFrames(AtmDropReason::SD_SHARE), 1, "an SD drop");

        // EPD in the same state refuses both.
        auto epd = MakeQueue(1000, AtmDropPolicy::EPD);
        FillTo(epd, 1, 800);
        NS_TEST_ASSERT_MSG_EQ(epd->Enqueue(MakeFrame(2)), false, "EPD refuses VC 2 too");
    }
};

class TailDropTestCase : public TestCase
{
  public:
    TailDropTestCase()
        : TestCase("Tail drop keeps cells while there is room, with no frame awareness")
    {
    }

  private:
    void DoRun() override
    {
        auto queue = MakeQueue(100, AtmDropPolicy::TAIL);
        FillTo(queue, 1, 92); // 4 frames
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(2)), true, "8 of its 23 cells fit");
        NS_TEST_ASSERT_MSG_EQ(queue->GetCells(), 100, "full");
        NS_TEST_ASSERT_MSG_EQ(queue->GetDroppedCells(AtmDropReason::TAIL_DROP), 15, "15 lost");
        NS_TEST_ASSERT_MSG_EQ(queue->Enqueue(MakeFrame(2)), false, "no room at all");
        NS_TEST_ASSERT_MSG_EQ(queue->GetDroppedCells(AtmDropReason::TAIL_DROP), 38, "23 more");
    }
};

/// UDP burst from server to client through a small trunk buffer.
class PartialFrameEndToEndTestCase : public TestCase
{
  public:
    PartialFrameEndToEndTestCase()
        : TestCase("A partial frame uses link time and is lost at reassembly")
    {
    }

  private:
    void DoRun() override
    {
        AtmDumbbellParameters p;
        p.pairs = 1;
        p.bufferCells = 100;
        p.dropPolicy = AtmDropPolicy::TAIL;
        AtmDumbbellHelper network(p);
        // With tail drop a refused frame lost either all its 22 cells or only its tail.
        uint64_t wholeFrames = 0;
        uint64_t partialFrames = 0;
        network.GetBottleneckQueue()->TraceConnectWithoutContext(
            "CellDrop",
            MakeCallback(+[](uint64_t* whole, uint64_t* partial, uint32_t, uint32_t cells,
                             AtmDropReason) { ++*(cells == 22 ? whole : partial); })
                .Bind(&wholeFrames, &partialFrames));

        const uint32_t datagrams = 200;
        const uint32_t payload = 1000; // + 28 B UDP/IP = 1028 B -> 22 cells
        auto sink = Socket::CreateSocket(network.GetClients().Get(0),
                                         UdpSocketFactory::GetTypeId());
        sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
        uint32_t received = 0;
        sink->SetRecvCallback([&received](Ptr<Socket> socket) {
            while (socket->Recv())
            {
                ++received;
            }
        });
        auto source = Socket::CreateSocket(network.GetServers().Get(0),
                                           UdpSocketFactory::GetTypeId());
        source->Connect(InetSocketAddress(network.GetClientAddress(0), 9));
        for (uint32_t i = 0; i < datagrams; ++i)
        {
            Simulator::Schedule(MicroSeconds(60 * i),
                                [source, payload]() { source->Send(Create<Packet>(payload)); });
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        const uint64_t lost = network.GetReassembly()->GetLostFrames();
        NS_TEST_ASSERT_MSG_GT(partialFrames, 0, "some frames lost their tail");
        NS_TEST_ASSERT_MSG_EQ(lost, partialFrames, "each partial frame is lost at reassembly");
        NS_TEST_ASSERT_MSG_GT(received, 0, "some frames made it");
        NS_TEST_ASSERT_MSG_EQ(received + wholeFrames + partialFrames,
                              datagrams,
                              "every datagram is delivered, refused whole, or lost at reassembly");
        Simulator::Destroy();
    }
};

class AtmTestSuite : public TestSuite
{
  public:
    AtmTestSuite()
        : TestSuite("satnet-atm", Type::UNIT)
    {
        AddTestCase(new Aal5ArithmeticTestCase, Duration::QUICK);
        AddTestCase(new EpdTestCase, Duration::QUICK);
        AddTestCase(new SelectiveDropTestCase, Duration::QUICK);
        AddTestCase(new TailDropTestCase, Duration::QUICK);
        AddTestCase(new PartialFrameEndToEndTestCase, Duration::QUICK);
    }
};

AtmTestSuite g_atmTestSuite;

} // namespace
