#include "atm-switch.h"

#include "atm-frame-tag.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AtmSwitch");
NS_OBJECT_ENSURE_REGISTERED(AtmSwitch);

TypeId
AtmSwitch::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AtmSwitch")
                            .SetParent<Object>()
                            .SetGroupName("Satnet")
                            .AddConstructor<AtmSwitch>()
                            .AddTraceSource("Unrouted",
                                            "A frame whose VC has no cross-connect on its port.",
                                            MakeTraceSourceAccessor(&AtmSwitch::m_unroutedTrace),
                                            "ns3::Packet::TracedCallback");
    return tid;
}

AtmSwitch::AtmSwitch()
    : m_unroutedFrames(0)
{
}

AtmSwitch::~AtmSwitch() = default;

void
AtmSwitch::Install(Ptr<Node> node)
{
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        node->RegisterProtocolHandler(MakeCallback(&AtmSwitch::Receive, this),
                                      0,
                                      node->GetDevice(i),
                                      false);
    }
    node->AggregateObject(this);
}

uint64_t
AtmSwitch::Key(uint32_t ifIndex, uint32_t vc)
{
    return (static_cast<uint64_t>(ifIndex) << 32) | vc;
}

void
AtmSwitch::AddVc(uint32_t vc, Ptr<NetDevice> hostPort, Ptr<NetDevice> trunkPort)
{
    NS_ABORT_MSG_IF(vc == 0, "VC 0 marks an unstamped frame");
    m_hostPortVc[hostPort->GetIfIndex()] = vc;
    m_crossConnects[Key(hostPort->GetIfIndex(), vc)] = trunkPort;
    m_crossConnects[Key(trunkPort->GetIfIndex(), vc)] = hostPort;
}

void
AtmSwitch::SetCellPort(Ptr<NetDevice> port, Ptr<AtmCellPort> cellPort)
{
    cellPort->SetDevice(port);
    m_cellPorts[port->GetIfIndex()] = cellPort;
}

uint64_t
AtmSwitch::GetUnroutedFrames() const
{
    return m_unroutedFrames;
}

void
AtmSwitch::Receive(Ptr<NetDevice> port,
                   Ptr<const Packet> packet,
                   uint16_t protocol,
                   const Address& from,
                   const Address& to,
                   NetDevice::PacketType packetType)
{
    const uint32_t ifIndex = port->GetIfIndex();
    // The device hands the frame over and keeps no reference: forward it without a copy.
    Ptr<Packet> frame = ConstCast<Packet>(packet);
    AtmFrameTag tag;
    frame->PeekPacketTag(tag);
    if (tag.GetVc() == 0)
    {
        auto vc = m_hostPortVc.find(ifIndex);
        if (vc != m_hostPortVc.end())
        {
            tag.SetVc(vc->second);
            frame->ReplacePacketTag(tag);
        }
    }
    auto out = m_crossConnects.find(Key(ifIndex, tag.GetVc()));
    if (out == m_crossConnects.end())
    {
        NS_LOG_WARN("no cross-connect for VC " << tag.GetVc() << " on port " << ifIndex);
        ++m_unroutedFrames;
        m_unroutedTrace(packet);
        return;
    }
    if (!m_cellPorts.empty())
    {
        auto cellPort = m_cellPorts.find(out->second->GetIfIndex());
        if (cellPort != m_cellPorts.end())
        {
            cellPort->second->Receive(frame, port, protocol);
            return;
        }
    }
    out->second->Send(frame, out->second->GetBroadcast(), protocol);
}

} // namespace ns3
