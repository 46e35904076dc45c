#include "atm-dumbbell-helper.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <limits>

namespace ns3
{

namespace
{

/// Ports that never congest: big enough for any window, so they never refuse a frame.
constexpr uint32_t kUnboundedCells = std::numeric_limits<uint32_t>::max() / 2;

/// IP MTU of the ATM interfaces: above the largest datagram studied (MSS 9180 + 40).
constexpr uint16_t kAtmMtu = 65535;

/// Trunk device rate in the cell model: the largest frame (65535 B) takes 0.0005 ns, i.e. 0 ns.
constexpr uint64_t kInstantRate = 1000000000000000000ULL;

Ptr<AtmCellQueue>
InstallQueue(Ptr<NetDevice> device, uint32_t cells, AtmDropPolicy policy, double r, double z)
{
    DataRateValue rate;
    device->GetAttribute("DataRate", rate);
    auto queue = CreateObjectWithAttributes<AtmCellQueue>("LinkRate",
                                                          rate,
                                                          "MaxCells",
                                                          UintegerValue(cells),
                                                          "DropPolicy",
                                                          EnumValue(policy),
                                                          "EpdThreshold",
                                                          DoubleValue(r),
                                                          "SdZ",
                                                          DoubleValue(z));
    DynamicCast<PointToPointNetDevice>(device)->SetQueue(queue);
    return queue;
}

Ptr<AtmCellQueue>
InstallAccessQueue(Ptr<NetDevice> device)
{
    return InstallQueue(device, kUnboundedCells, AtmDropPolicy::TAIL, 1.0, 1.0);
}

} // namespace

AtmDumbbellHelper::AtmDumbbellHelper(const AtmDumbbellParameters& p)
    : m_reassembly(CreateObject<Aal5ReassemblyErrorModel>())
{
    m_servers.Create(p.pairs);
    m_clients.Create(p.pairs);
    NodeContainer switches;
    switches.Create(2);

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(p.accessRate));
    access.SetDeviceAttribute("Mtu", UintegerValue(kAtmMtu));
    access.SetChannelAttribute("Delay", TimeValue(p.accessDelay));
    PointToPointHelper trunk;
    trunk.SetDeviceAttribute("DataRate", DataRateValue(p.bottleneckRate));
    trunk.SetDeviceAttribute("Mtu", UintegerValue(kAtmMtu));
    trunk.SetChannelAttribute("Delay", TimeValue(p.bottleneckDelay));

    // Trunk first: its ports get ifIndex 0 on both switches.
    const bool cellModel = p.switchModel == AtmSwitchModel::CELL;
    if (cellModel)
    {
        trunk.SetDeviceAttribute("DataRate", DataRateValue(DataRate(kInstantRate)));
    }
    NetDeviceContainer trunkPorts = trunk.Install(switches.Get(0), switches.Get(1));
    if (cellModel)
    {
        InstallAccessQueue(trunkPorts.Get(0));
        InstallAccessQueue(trunkPorts.Get(1));
        for (auto* port : {&m_bottleneckPort, &m_reversePort})
        {
            *port = CreateObjectWithAttributes<AtmCellPort>("LinkRate",
                                                            DataRateValue(p.bottleneckRate),
                                                            "MaxCells",
                                                            UintegerValue(p.bufferCells),
                                                            "DropPolicy",
                                                            EnumValue(p.dropPolicy),
                                                            "EpdThreshold",
                                                            DoubleValue(p.epdThreshold),
                                                            "SdZ",
                                                            DoubleValue(p.sdZ),
                                                            "PartialFrames",
                                                            EnumValue(p.partialFrames));
        }
    }
    else
    {
        m_bottleneckQueue =
            InstallQueue(trunkPorts.Get(0), p.bufferCells, p.dropPolicy, p.epdThreshold, p.sdZ);
        m_reverseQueue =
            InstallQueue(trunkPorts.Get(1), p.bufferCells, p.dropPolicy, p.epdThreshold, p.sdZ);
    }

    InternetStackHelper internet;
    internet.Install(m_servers);
    internet.Install(m_clients);

    std::vector<std::pair<Ptr<NetDevice>, Ptr<NetDevice>>> switchPorts;
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    TrafficControlHelper trafficControl;
    for (uint32_t i = 0; i < p.pairs; ++i)
    {
        NetDeviceContainer serverLink = access.Install(m_servers.Get(i), switches.Get(0));
        NetDeviceContainer clientLink = access.Install(m_clients.Get(i), switches.Get(1));
        NetDeviceContainer hostPorts(serverLink.Get(0), clientLink.Get(0));
        for (uint32_t d = 0; d < 2; ++d)
        {
            InstallAccessQueue(serverLink.Get(d));
            InstallAccessQueue(clientLink.Get(d));
            DynamicCast<PointToPointNetDevice>(hostPorts.Get(d))
                ->SetReceiveErrorModel(m_reassembly);
        }
        Ipv4InterfaceContainer interfaces = addresses.Assign(hostPorts);
        addresses.NewNetwork();
        trafficControl.Uninstall(hostPorts);
        m_serverAddresses.push_back(interfaces.GetAddress(0));
        m_clientAddresses.push_back(interfaces.GetAddress(1));
        switchPorts.emplace_back(serverLink.Get(1), clientLink.Get(1));
    }

    auto switch1 = CreateObject<AtmSwitch>();
    auto switch2 = CreateObject<AtmSwitch>();
    switch1->Install(switches.Get(0));
    switch2->Install(switches.Get(1));
    if (cellModel)
    {
        switch1->SetCellPort(trunkPorts.Get(0), m_bottleneckPort);
        switch2->SetCellPort(trunkPorts.Get(1), m_reversePort);
    }
    for (uint32_t i = 0; i < p.pairs; ++i)
    {
        switch1->AddVc(GetVc(i), switchPorts[i].first, trunkPorts.Get(0));
        switch2->AddVc(GetVc(i), switchPorts[i].second, trunkPorts.Get(1));
    }
}

uint32_t
AtmDumbbellHelper::GetVc(uint32_t i)
{
    return i + 1;
}

NodeContainer
AtmDumbbellHelper::GetServers() const
{
    return m_servers;
}

NodeContainer
AtmDumbbellHelper::GetClients() const
{
    return m_clients;
}

Ipv4Address
AtmDumbbellHelper::GetServerAddress(uint32_t i) const
{
    return m_serverAddresses.at(i);
}

Ipv4Address
AtmDumbbellHelper::GetClientAddress(uint32_t i) const
{
    return m_clientAddresses.at(i);
}

Ptr<AtmCellQueue>
AtmDumbbellHelper::GetBottleneckQueue() const
{
    return m_bottleneckQueue;
}

Ptr<AtmCellQueue>
AtmDumbbellHelper::GetReverseQueue() const
{
    return m_reverseQueue;
}

Ptr<AtmCellPort>
AtmDumbbellHelper::GetBottleneckPort() const
{
    return m_bottleneckPort;
}

Ptr<AtmCellPort>
AtmDumbbellHelper::GetReversePort() const
{
    return m_reversePort;
}

uint64_t
AtmDumbbellHelper::GetTrunkDroppedFrames(AtmDropReason reason) const
{
    if (m_bottleneckPort)
    {
        return m_bottleneckPort->GetDroppedFrames(reason) + m_reversePort->GetDroppedFrames(reason);
    }
    return m_bottleneckQueue->GetDroppedFrames(reason) + m_reverseQueue->GetDroppedFrames(reason);
}

uint64_t
AtmDumbbellHelper::GetTrunkDroppedCells(AtmDropReason reason) const
{
    if (m_bottleneckPort)
    {
        return m_bottleneckPort->GetDroppedCells(reason) + m_reversePort->GetDroppedCells(reason);
    }
    return m_bottleneckQueue->GetDroppedCells(reason) + m_reverseQueue->GetDroppedCells(reason);
}

void
AtmDumbbellHelper::TraceBottleneckCellDrop(const CallbackBase& sink) const
{
    if (m_bottleneckPort)
    {
        m_bottleneckPort->TraceConnectWithoutContext("CellDrop", sink);
    }
    else
    {
        m_bottleneckQueue->TraceConnectWithoutContext("CellDrop", sink);
    }
}

Ptr<Aal5ReassemblyErrorModel>
AtmDumbbellHelper::GetReassembly() const
{
    return m_reassembly;
}

} // namespace ns3
