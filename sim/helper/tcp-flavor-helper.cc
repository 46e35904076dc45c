#include "helper/tcp-flavor-helper.h"

#include "model/tcp-flavor-socket-factory.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFlavorHelper");

TcpParameters
TcpParameters::ForLink(const LinkPreset& link, TcpFlavor flavor)
{
    TcpParameters p;
    p.flavor = flavor;
    p.mss = link.mss;
    p.windowBytes = link.windowBytes;
    p.initialSsthreshBytes = link.initialSsthreshBytes;
    return p;
}

TcpFlavorHelper::TcpFlavorHelper(const TcpParameters& parameters)
    : m_parameters(parameters)
{
}

void
TcpFlavorHelper::Install(const NodeContainer& nodes) const
{
    for (auto it = nodes.Begin(); it != nodes.End(); ++it)
    {
        Install(*it);
    }
}

void
TcpFlavorHelper::Install(Ptr<Node> node) const
{
    NS_LOG_FUNCTION(this << node->GetId());
    NS_ABORT_MSG_IF(node->GetObject<TcpFlavorSocketFactory>(),
                    "node " << node->GetId() << " already has a TcpFlavorSocketFactory");
    Ptr<TcpFlavorSocketFactory> factory = CreateObject<TcpFlavorSocketFactory>();
    factory->SetAttribute("Model", EnumValue(m_parameters.model));
    factory->SetAttribute("Flavor", EnumValue(m_parameters.flavor));
    factory->SetAttribute("SegmentSize", UintegerValue(m_parameters.mss));
    factory->SetAttribute("WindowBytes", UintegerValue(m_parameters.windowBytes));
    factory->SetAttribute("SndBufBytes", UintegerValue(m_parameters.sndBufBytes));
    factory->SetAttribute("InitialSsthresh", UintegerValue(m_parameters.initialSsthreshBytes));
    factory->SetAttribute("Tick", TimeValue(m_parameters.tick));
    factory->SetAttribute("MinRto", TimeValue(m_parameters.minRto));
    factory->SetAttribute("SlowStartRestart", BooleanValue(m_parameters.slowStartRestart));
    factory->SetAttribute("FastRetransmitGuard", BooleanValue(m_parameters.fastRetransmitGuard));
    factory->SetAttribute("ByteWindow", BooleanValue(m_parameters.byteWindow));
    factory->SetAttribute("TimerClock", EnumValue(m_parameters.timerClock));
    node->AggregateObject(factory);
}

} // namespace ns3
