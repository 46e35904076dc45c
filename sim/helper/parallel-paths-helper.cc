#include "helper/parallel-paths-helper.h"

#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/traffic-control-helper.h"

namespace ns3
{

void
ParallelPathsHelper::Install(const std::vector<Path>& paths)
{
    // Subnets 10.k.j.0/24: path k (from 1), j = 0 the access link, 1 the bottleneck, 2.. the
    // egress links.
    NS_ABORT_MSG_IF(paths.empty() || paths.size() > 200, "ParallelPathsHelper: 1 to 200 paths");
    m_sender = CreateObject<Node>();
    InternetStackHelper internet;
    internet.Install(m_sender);

    auto link = [](DataRate rate, Time delay) {
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
        p2p.SetChannelAttribute("Delay", TimeValue(delay));
        return p2p;
    };
    PointToPointHelper access = link(accessRate, accessDelay);
    PointToPointHelper egress = link(egressRate, egressDelay);
    Ipv4AddressHelper addresses;
    TrafficControlHelper trafficControl;
    // Assign installs a queue disc only where flow control is on: all but the bottlenecks.
    auto connect = [&](PointToPointHelper& p2p, Ptr<Node> a, Ptr<Node> b, uint32_t k, uint32_t j,
                       bool withQueueDisc = true) {
        NetDeviceContainer devices = p2p.Install(a, b);
        addresses.SetBase(Ipv4Address((10U << 24) | (k << 16) | (j << 8)), "255.255.255.0");
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
        if (withQueueDisc)
        {
            trafficControl.Uninstall(devices);
        }
        return std::make_pair(devices, interfaces);
    };

    for (uint32_t k = 0; k < paths.size(); ++k)
    {
        const Path& path = paths[k];
        NS_ABORT_MSG_IF(path.receivers == 0 || path.receivers > 250,
                        "ParallelPathsHelper: 1 to 250 receivers a path");
        NodeContainer routers;
        routers.Create(2);
        internet.Install(routers);
        connect(access, m_sender, routers.Get(0), k + 1, 0);
        PointToPointHelper bottleneck = link(path.rate, path.delay);
        bottleneck.SetQueue("ns3::DropTailQueue",
                            "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, bufferPackets)));
        // Without flow control a full device queue drops the packet itself (ns-2's DropTail).
        bottleneck.DisableFlowControl();
        m_bottlenecks.push_back(connect(bottleneck, routers.Get(0), routers.Get(1), k + 1, 1, false)
                                    .first.Get(0));
        for (uint32_t j = 0; j < path.receivers; ++j)
        {
            Ptr<Node> receiver = CreateObject<Node>();
            internet.Install(receiver);
            auto [devices, interfaces] = connect(egress, routers.Get(1), receiver, k + 1, j + 2);
            m_receivers.Add(receiver);
            m_addresses.push_back(interfaces.GetAddress(1));
            m_receiverDevices.push_back(devices.Get(1));
            m_pathOf.push_back(k);
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

Ptr<Node>
ParallelPathsHelper::GetSender() const
{
    return m_sender;
}

NodeContainer
ParallelPathsHelper::GetReceivers() const
{
    return m_receivers;
}

Ipv4Address
ParallelPathsHelper::GetReceiverAddress(uint32_t i) const
{
    return m_addresses.at(i);
}

Ptr<NetDevice>
ParallelPathsHelper::GetReceiverDevice(uint32_t i) const
{
    return m_receiverDevices.at(i);
}

uint32_t
ParallelPathsHelper::GetPathOf(uint32_t i) const
{
    return m_pathOf.at(i);
}

Ptr<NetDevice>
ParallelPathsHelper::GetBottleneckDevice(uint32_t k) const
{
    return m_bottlenecks.at(k);
}

} // namespace ns3
