/*
 * Tests of BottleneckPathHelper: the bottleneck holds B packets waiting, no more, no fewer.
 */
#include "helper/bottleneck-path-helper.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

/**
 * A burst of 20 UDP packets of 512 B from a sender at 100 Mb/s reaches the 1.5 Mb/s bottleneck
 * far faster than it drains: one packet is on the wire, B wait, the rest are dropped at the
 * bottleneck device's queue. With ns-3's default FqCoDel queue disc left in front of it all 20
 * would arrive.
 */
class DropTailBufferTestCase : public TestCase
{
  public:
    /// @param buffer B, packets
    explicit DropTailBufferTestCase(uint32_t buffer)
        : TestCase("a burst of 20 through a drop-tail buffer of " + std::to_string(buffer) +
                   " packets"),
          m_buffer(buffer)
    {
    }

  private:
    void DoRun() override
    {
        constexpr uint32_t burst = 20;
        constexpr uint16_t port = 9;
        BottleneckPathHelper path;
        path.bufferPackets = m_buffer;
        path.Install(2);
        NS_TEST_ASSERT_MSG_EQ(path.GetBaseRtt(), MilliSeconds(204), "2 x (1 + 100 + 1) ms");
        PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApps = sinkHelper.Install(path.GetReceiver());
        sinkApps.Start(Seconds(0));
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApps.Get(0));
        uint32_t drops = 0;
        Ptr<Queue<Packet>> queue =
            DynamicCast<PointToPointNetDevice>(path.GetBottleneckDevice())->GetQueue();
        queue->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(+[](uint32_t* n, Ptr<const Packet>) { ++*n; }).Bind(&drops));
        Ptr<Socket> socket =
            Socket::CreateSocket(path.GetSenders().Get(1), UdpSocketFactory::GetTypeId());
        socket->Connect(InetSocketAddress(path.GetReceiverAddress(), port));
        Simulator::Schedule(Seconds(1), [socket]() {
            for (uint32_t i = 0; i < burst; ++i)
            {
                socket->Send(Create<Packet>(512));
            }
        });
        Simulator::Stop(Seconds(3));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), (m_buffer + 1) * 512, "one sent, B waiting");
        NS_TEST_ASSERT_MSG_EQ(drops, burst - (m_buffer + 1), "the rest dropped at the tail");
        Simulator::Destroy();
    }

    uint32_t m_buffer; ///< B
};

/// The suite.
class BottleneckPathTestSuite : public TestSuite
{
  public:
    BottleneckPathTestSuite()
        : TestSuite("satsweep-bottleneck-path", Type::UNIT)
    {
        AddTestCase(new DropTailBufferTestCase(5));
        AddTestCase(new DropTailBufferTestCase(12));
    }
};

/// Static instance registering the suite.
static BottleneckPathTestSuite g_bottleneckPathTestSuite;

} // namespace
