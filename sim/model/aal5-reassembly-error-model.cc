#include "aal5-reassembly-error-model.h"

#include "atm-frame-tag.h"

#include "ns3/packet.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(Aal5ReassemblyErrorModel);

TypeId
Aal5ReassemblyErrorModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::Aal5ReassemblyErrorModel")
                            .SetParent<ErrorModel>()
                            .SetGroupName("Satnet")
                            .AddConstructor<Aal5ReassemblyErrorModel>();
    return tid;
}

Aal5ReassemblyErrorModel::Aal5ReassemblyErrorModel()
    : m_lostFrames(0)
{
}

uint64_t
Aal5ReassemblyErrorModel::GetLostFrames() const
{
    return m_lostFrames;
}

bool
Aal5ReassemblyErrorModel::DoCorrupt(Ptr<Packet> packet)
{
    AtmFrameTag tag;
    if (packet->PeekPacketTag(tag) && tag.IsPartial())
    {
        ++m_lostFrames;
        return true;
    }
    return false;
}

void
Aal5ReassemblyErrorModel::DoReset()
{
    m_lostFrames = 0;
}

} // namespace ns3
