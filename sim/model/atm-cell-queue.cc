#include "atm-cell-queue.h"

#include "aal5.h"
#include "atm-frame-tag.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

// No NS_LOG here: inside a Queue<Packet> subclass the macros resolve to the base's private g_log.
NS_OBJECT_ENSURE_REGISTERED(AtmCellQueue);

TypeId
AtmCellQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AtmCellQueue")
            .SetParent<Queue<Packet>>()
            .SetGroupName("Satnet")
            .AddConstructor<AtmCellQueue>()
            .AddAttribute("MaxCells",
                          "Buffer size K in cells, shared by all VCs of the port.",
                          UintegerValue(1062),
                          MakeUintegerAccessor(&AtmCellQueue::m_maxCells),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DropPolicy",
                          "Which cells the port refuses: Tail, EPD or SD.",
                          EnumValue(AtmDropPolicy::EPD),
                          MakeEnumAccessor<AtmDropPolicy>(&AtmCellQueue::m_policy),
                          MakeEnumChecker(AtmDropPolicy::TAIL,
                                          "Tail",
                                          AtmDropPolicy::EPD,
                                          "EPD",
                                          AtmDropPolicy::SD,
                                          "SD"))
            .AddAttribute("EpdThreshold",
                          "R as a fraction of K: above R cells, EPD refuses new frames and SD "
                          "refuses new frames of VCs above their share.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&AtmCellQueue::m_epdThreshold),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("SdZ",
                          "Z of Selective Drop: a VC is above its share when X_i > Z * X / Na.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&AtmCellQueue::m_sdZ),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("LinkHeaderBytes",
                          "Bytes of link header the device has added before enqueueing "
                          "(PointToPointNetDevice: 2); not part of the AAL5 frame.",
                          UintegerValue(2),
                          MakeUintegerAccessor(&AtmCellQueue::m_linkHeaderBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LinkRate",
                          "Cell rate of the port's link. When set, the cells of the frame on "
                          "the wire count in X until each is transmitted; 0 counts a frame out "
                          "of the buffer as soon as its transmission starts.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&AtmCellQueue::m_linkRate),
                          MakeDataRateChecker())
            .AddTraceSource("Cells",
                            "Cells of the frames waiting (X without the frame on the wire).",
                            MakeTraceSourceAccessor(&AtmCellQueue::m_cells),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("CellDrop",
                            "Cells refused: VC, number of cells, reason.",
                            MakeTraceSourceAccessor(&AtmCellQueue::m_cellDropTrace),
                            "ns3::AtmCellQueue::CellDropTracedCallback");
    return tid;
}

AtmCellQueue::AtmCellQueue()
    : m_maxCells(1062),
      m_policy(AtmDropPolicy::EPD),
      m_epdThreshold(0.8),
      m_sdZ(0.8),
      m_linkHeaderBytes(2),
      m_cells(0),
      m_activeVcs(0)
{
}

AtmCellQueue::~AtmCellQueue() = default;

void
AtmCellQueue::NotifyConstructionCompleted()
{
    Queue<Packet>::NotifyConstructionCompleted();
    // The buffer is bounded in cells here, not in packets by the base class.
    SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, std::numeric_limits<uint32_t>::max()));
}

uint32_t
AtmCellQueue::CellsOnWire() const
{
    const Time left = m_onWireEnd - Simulator::Now();
    if (m_linkRate.GetBitRate() == 0 || !left.IsStrictlyPositive())
    {
        return 0;
    }
    const double cellSeconds = aal5::kCellBytes * 8.0 / m_linkRate.GetBitRate();
    const auto cells = static_cast<uint32_t>(std::ceil(left.GetSeconds() / cellSeconds - 1e-9));
    return std::min(cells, m_onWire.cells);
}

uint32_t
AtmCellQueue::GetCells() const
{
    return m_cells + CellsOnWire();
}

uint32_t
AtmCellQueue::GetVcCells(uint32_t vc) const
{
    const uint32_t waiting = vc < m_vcCells.size() ? m_vcCells[vc] : 0;
    return waiting + (vc == m_onWire.vc ? CellsOnWire() : 0);
}

uint32_t
AtmCellQueue::GetActiveVcs() const
{
    const bool onWireOnly = CellsOnWire() > 0 && GetVcCells(m_onWire.vc) == CellsOnWire();
    return m_activeVcs + (onWireOnly ? 1 : 0);
}

uint32_t
AtmCellQueue::GetMaxCells() const
{
    return m_maxCells;
}

uint64_t
AtmCellQueue::GetDroppedFrames(AtmDropReason reason) const
{
    return m_drops.GetFrames(reason);
}

uint64_t
AtmCellQueue::GetDroppedCells(AtmDropReason reason) const
{
    return m_drops.GetCells(reason);
}

bool
AtmCellQueue::AdmitNewFrame(uint32_t vc, AtmDropReason& reason) const
{
    if (m_policy == AtmDropPolicy::TAIL)
    {
        return true;
    }
    const bool sd = m_policy == AtmDropPolicy::SD;
    return AtmAdmitsNewFrame({m_policy,
                              m_maxCells,
                              m_epdThreshold,
                              m_sdZ,
                              GetCells(),
                              sd ? GetVcCells(vc) : 0,
                              sd ? GetActiveVcs() : 0},
                             reason);
}

bool
AtmCellQueue::Enqueue(Ptr<Packet> packet)
{
    AtmFrameTag tag;
    if (!packet->PeekPacketTag(tag))
    {
        tag = AtmFrameTag(0, packet->GetSize() - m_linkHeaderBytes);
        packet->AddPacketTag(tag);
    }
    const uint32_t vc = tag.GetVc();
    const uint32_t cells = tag.GetCarriedCells();

    AtmDropReason reason = AtmDropReason::TAIL_DROP;
    if (!AdmitNewFrame(vc, reason))
    {
        CountDrop(vc, cells, reason);
        DropBeforeEnqueue(packet);
        return false;
    }

    const uint32_t occupied = GetCells();
    const uint32_t room = occupied < m_maxCells ? m_maxCells - occupied : 0;
    if (room == 0)
    {
        const auto fullReason =
            m_policy == AtmDropPolicy::TAIL ? AtmDropReason::TAIL_DROP : AtmDropReason::BUFFER_FULL;
        CountDrop(vc, cells, fullReason);
        DropBeforeEnqueue(packet);
        return false;
    }

    uint32_t kept = cells;
    if (cells > room)
    {
        kept = room;
        CountDrop(vc,
                  cells - room,
                  m_policy == AtmDropPolicy::TAIL ? AtmDropReason::TAIL_DROP
                                                  : AtmDropReason::PARTIAL);
        tag.SetCarriedCells(kept);
        packet->ReplacePacketTag(tag);
    }
    PadToCells(packet, kept);

    if (!DoEnqueue(GetContainer().end(), packet))
    {
        return false;
    }
    m_frames.push_back({vc, kept});
    Account(vc, kept);
    return true;
}

void
AtmCellQueue::CountDrop(uint32_t vc, uint32_t cells, AtmDropReason reason)
{
    m_drops.Add(reason, cells);
    m_cellDropTrace(vc, cells, reason);
}

void
AtmCellQueue::PadToCells(Ptr<Packet> packet, uint32_t cells) const
{
    // The padding left by the previous hop is replaced by this hop's (both are zero bytes).
    const uint32_t wireBytes = cells * aal5::kCellBytes;
    const uint32_t size = packet->GetSize();
    if (size > wireBytes)
    {
        packet->RemoveAtEnd(size - wireBytes);
    }
    else if (size < wireBytes)
    {
        packet->AddPaddingAtEnd(wireBytes - size);
    }
}

void
AtmCellQueue::Account(uint32_t vc, int64_t cells)
{
    if (vc >= m_vcCells.size())
    {
        m_vcCells.resize(vc + 1, 0);
    }
    const bool wasActive = m_vcCells[vc] > 0;
    m_vcCells[vc] = static_cast<uint32_t>(m_vcCells[vc] + cells);
    m_cells = static_cast<uint32_t>(m_cells + cells);
    const bool isActive = m_vcCells[vc] > 0;
    if (isActive != wasActive)
    {
        m_activeVcs += isActive ? 1 : -1;
    }
}

Ptr<Packet>
AtmCellQueue::Pop()
{
    Ptr<Packet> packet = DoDequeue(GetContainer().begin());
    if (packet)
    {
        m_onWire = m_frames.front();
        m_frames.pop_front();
        Account(m_onWire.vc, -static_cast<int64_t>(m_onWire.cells));
        // The device starts sending as it dequeues; its cells leave one cell time apart.
        if (m_linkRate.GetBitRate() > 0)
        {
            m_onWireEnd = Simulator::Now() + m_linkRate.CalculateBytesTxTime(
                                                 m_onWire.cells * aal5::kCellBytes);
        }
    }
    return packet;
}

Ptr<Packet>
AtmCellQueue::Dequeue()
{
    return Pop();
}

Ptr<Packet>
AtmCellQueue::Remove()
{
    Ptr<Packet> packet = Pop();
    if (packet)
    {
        DropAfterDequeue(packet);
    }
    return packet;
}

Ptr<const Packet>
AtmCellQueue::Peek() const
{
    return DoPeek(GetContainer().begin());
}

} // namespace ns3
