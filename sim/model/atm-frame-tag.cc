#include "atm-frame-tag.h"

#include "aal5.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AtmFrameTag);

TypeId
AtmFrameTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::AtmFrameTag")
                            .SetParent<Tag>()
                            .SetGroupName("Satnet")
                            .AddConstructor<AtmFrameTag>();
    return tid;
}

TypeId
AtmFrameTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

AtmFrameTag::AtmFrameTag(uint32_t vc, uint32_t ipBytes)
    : m_vc(vc),
      m_ipBytes(ipBytes),
      m_carriedCells(aal5::CellsForDatagram(ipBytes))
{
}

uint32_t
AtmFrameTag::GetSerializedSize() const
{
    return 12;
}

void
AtmFrameTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_vc);
    i.WriteU32(m_ipBytes);
    i.WriteU32(m_carriedCells);
}

void
AtmFrameTag::Deserialize(TagBuffer i)
{
    m_vc = i.ReadU32();
    m_ipBytes = i.ReadU32();
    m_carriedCells = i.ReadU32();
}

void
AtmFrameTag::Print(std::ostream& os) const
{
    os << "vc=" << m_vc << " ipBytes=" << m_ipBytes << " cells=" << m_carriedCells << "/"
       << GetFrameCells();
}

uint32_t
AtmFrameTag::GetVc() const
{
    return m_vc;
}

void
AtmFrameTag::SetVc(uint32_t vc)
{
    m_vc = vc;
}

uint32_t
AtmFrameTag::GetIpBytes() const
{
    return m_ipBytes;
}

uint32_t
AtmFrameTag::GetFrameCells() const
{
    return aal5::CellsForDatagram(m_ipBytes);
}

uint32_t
AtmFrameTag::GetCarriedCells() const
{
    return m_carriedCells;
}

void
AtmFrameTag::SetCarriedCells(uint32_t cells)
{
    m_carriedCells = cells;
}

bool
AtmFrameTag::IsPartial() const
{
    return m_carriedCells < GetFrameCells();
}

} // namespace ns3
