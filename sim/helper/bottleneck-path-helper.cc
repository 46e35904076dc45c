#include "helper/bottleneck-path-helper.h"

#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/traffic-control-helper.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("BottleneckPathHelper");

void
BottleneckPathHelper::Install(uint32_t senders)
{
    // One /24 per access link, 10.0.2.0 upward: at most 253 senders.
    NS_ABORT_MSG_IF(senders == 0 || senders > 253, "BottleneckPathHelper: 1 to 253 senders");
    m_senders.Create(senders);
    NodeContainer routers;
    routers.Create(2);
    m_receiver = CreateObject<Node>();
    NodeContainer all(m_senders, routers);
    all.Add(m_receiver);
    InternetStackHelper().Install(all);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(accessRate));
    access.SetChannelAttribute("Delay", TimeValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", TimeValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue",
                        "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufferPackets)));
    // Without flow control a full device queue drops the packet itself (its Drop trace), as
    // ns-2's DropTail; with it, the traffic-control layer would drop it before the queue.
    bottleneck.DisableFlowControl();

    Ipv4AddressHelper addresses;
    TrafficControlHelper trafficControl;
    // Assign installs a queue disc only where flow control is on: the access links.
    auto connect = [&](PointToPointHelper& link, Ptr<Node> a, Ptr<Node> b, uint32_t subnet,
                       bool withQueueDisc) {
        NetDeviceContainer devices = link.Install(a, b);
        addresses.SetBase(Ipv4Address((10U << 24) | (subnet << 8)), "255.255.255.0");
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        if (withQueueDisc)
        {
            trafficControl.Uninstall(devices);
        }
        return std::make_pair(devices, interfaces);
    };
    for (uint32_t i = 0; i < senders; ++i)
    {
        connect(access, m_senders.Get(i), routers.Get(0), i + 2, true);
    }
    m_bottleneckDevice =
        connect(bottleneck, routers.Get(0), routers.Get(1), 1, false).first.Get(0);
    m_receiverAddress = connect(access, m_receiver, routers.Get(1), 0, true).second.GetAddress(0);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

NodeContainer
BottleneckPathHelper::GetSenders() const
{
    return m_senders;
}

Ptr<Node>
BottleneckPathHelper::GetReceiver() const
{
    return m_receiver;
}

Ipv4Address
BottleneckPathHelper::GetReceiverAddress() const
{
    return m_receiverAddress;
}

Ptr<NetDevice>
BottleneckPathHelper::GetBottleneckDevice() const
{
    return m_bottleneckDevice;
}

Time
BottleneckPathHelper::GetBaseRtt() const
{
    return 2 * (accessDelay + bottleneckDelay + accessDelay);
}

} // namespace ns3
