#include "atm-cell-port.h"

#include "aal5.h"
#include "atm-frame-tag.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("AtmCellPort");
NS_OBJECT_ENSURE_REGISTERED(AtmCellPort);

TypeId
AtmCellPort::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::AtmCellPort")
            .SetParent<Object>()
            .SetGroupName("Satnet")
            .AddConstructor<AtmCellPort>()
            .AddAttribute("MaxCells",
                          "Buffer size K in cells, shared by all VCs of the port.",
                          UintegerValue(1062),
                          MakeUintegerAccessor(&AtmCellPort::m_maxCells),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DropPolicy",
                          "Which cells the port refuses: Tail, EPD or SD.",
                          EnumValue(AtmDropPolicy::EPD),
                          MakeEnumAccessor<AtmDropPolicy>(&AtmCellPort::m_policy),
                          MakeEnumChecker(AtmDropPolicy::TAIL,
                                          "Tail",
                                          AtmDropPolicy::EPD,
                                          "EPD",
                                          AtmDropPolicy::SD,
                                          "SD"))
            .AddAttribute("EpdThreshold",
                          "R as a fraction of K: when a frame's first cell arrives above R "
                          "cells, EPD refuses the frame, and SD does if its VC is above its "
                          "share.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&AtmCellPort::m_epdThreshold),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("SdZ",
                          "Z of Selective Drop: a VC is above its share when X_i > Z * X / Na.",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&AtmCellPort::m_sdZ),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("LinkRate",
                          "Cell rate of the port's link: one buffered cell leaves every 424 bits "
                          "of it.",
                          DataRateValue(DataRate("45Mbps")),
                          MakeDataRateAccessor(&AtmCellPort::m_linkRate),
                          MakeDataRateChecker())
            .AddAttribute("PartialFrames",
                          "EPD and SD: the later cells of a frame that has lost a cell for want "
                          "of room. PPD (partial packet discard): dropped, but the last, which is "
                          "kept when it fits. Accept: each kept whenever the buffer has room "
                          "when it arrives (\"partially received packets are accepted if "
                          "possible\").",
                          EnumValue(AtmPartialFrames::PPD),
                          MakeEnumAccessor<AtmPartialFrames>(&AtmCellPort::m_partialFrames),
                          MakeEnumChecker(AtmPartialFrames::PPD,
                                          "PPD",
                                          AtmPartialFrames::ACCEPT,
                                          "Accept"))
            .AddTraceSource("CellDrop",
                            "Cells refused: VC, number of cells, reason (for the later cells "
                            "of an admitted frame, reported when its last cell arrives).",
                            MakeTraceSourceAccessor(&AtmCellPort::m_cellDropTrace),
                            "ns3::AtmCellQueue::CellDropTracedCallback");
    return tid;
}

AtmCellPort::AtmCellPort()
    : m_maxCells(1062),
      m_policy(AtmDropPolicy::EPD),
      m_epdThreshold(0.8),
      m_sdZ(0.8),
      m_linkRate("45Mbps"),
      m_partialFrames(AtmPartialFrames::PPD),
      m_activeVcs(0),
      m_busyCells(0)
{
}

AtmCellPort::~AtmCellPort() = default;

void
AtmCellPort::DoDispose()
{
    m_device = nullptr;
    m_arrivals.clear();
    Object::DoDispose();
}

void
AtmCellPort::SetDevice(Ptr<NetDevice> device)
{
    m_device = device;
}

Time
AtmCellPort::CellTimes(uint64_t cells, uint64_t bps)
{
    // 128 bits: a busy period of 1e7 cells at 45 Mbit/s is 4e18 bit-nanoseconds already.
    const __int128 bitNs = static_cast<__int128>(cells) * aal5::kCellBytes * 8 * 1000000000;
    return NanoSeconds(static_cast<int64_t>(bitNs / bps));
}

Time
AtmCellPort::NextCellTime(const Arrival& arrival)
{
    return arrival.start + CellTimes(arrival.next, arrival.inputBps);
}

uint32_t
AtmCellPort::GetCells()
{
    Advance(Simulator::Now());
    return static_cast<uint32_t>(m_buffer.size());
}

uint32_t
AtmCellPort::GetVcCells(uint32_t vc)
{
    Advance(Simulator::Now());
    return vc < m_vcCells.size() ? m_vcCells[vc] : 0;
}

uint32_t
AtmCellPort::GetActiveVcs()
{
    Advance(Simulator::Now());
    return m_activeVcs;
}

uint32_t
AtmCellPort::GetMaxCells() const
{
    return m_maxCells;
}

uint64_t
AtmCellPort::GetDroppedFrames(AtmDropReason reason) const
{
    return m_drops.GetFrames(reason);
}

uint64_t
AtmCellPort::GetDroppedCells(AtmDropReason reason) const
{
    return m_drops.GetCells(reason);
}

void
AtmCellPort::Receive(Ptr<Packet> frame, Ptr<NetDevice> input, uint16_t protocol)
{
    AtmFrameTag tag;
    frame->PeekPacketTag(tag);
    Input& in = m_inputs[input->GetIfIndex()];
    if (in.bps == 0)
    {
        DataRateValue rate;
        input->GetAttribute("DataRate", rate);
        in.bps = rate.Get().GetBitRate();
    }
    const Time now = Simulator::Now();
    // One input delivers one frame's cells at a time.
    const Time start = std::max(now, in.free);
    in.free = start + CellTimes(tag.GetCarriedCells(), in.bps);
    Arrival arrival{frame, protocol, tag.GetVc(), tag.GetCarriedCells(), start, in.bps};
    if (start == now)
    {
        Begin(std::move(arrival));
    }
    else
    {
        Simulator::Schedule(start - now, &AtmCellPort::Begin, this, std::move(arrival));
    }
}

void
AtmCellPort::Begin(Arrival arrival)
{
    const Time now = Simulator::Now();
    Advance(now);
    if (m_policy != AtmDropPolicy::TAIL)
    {
        const uint32_t cells = static_cast<uint32_t>(m_buffer.size());
        const bool sd = m_policy == AtmDropPolicy::SD;
        AtmDropReason reason = AtmDropReason::BUFFER_FULL;
        const bool admitted = AtmAdmitsNewFrame(
            {m_policy,
             m_maxCells,
             m_epdThreshold,
             m_sdZ,
             cells,
             sd && arrival.vc < m_vcCells.size() ? m_vcCells[arrival.vc] : 0,
             m_activeVcs},
            reason);
        if (!admitted || cells >= m_maxCells)
        {
            CountDrop(arrival.vc, arrival.cells, admitted ? AtmDropReason::BUFFER_FULL : reason);
            return;
        }
    }
    auto it = m_arrivals.insert(m_arrivals.end(), std::move(arrival));
    ArriveCell(*it, now);
    it->next = 1;
    if (it->cells == 1)
    {
        Complete(it);
        return;
    }
    const Time last = it->start + CellTimes(it->cells - 1, it->inputBps);
    Simulator::Schedule(last - now, &AtmCellPort::Complete, this, it);
}

void
AtmCellPort::Complete(std::list<Arrival>::iterator it)
{
    Advance(Simulator::Now());
    Arrival arrival = std::move(*it);
    m_arrivals.erase(it);
    const uint32_t lost = arrival.cells - arrival.kept;
    if (lost > 0)
    {
        CountDrop(arrival.vc,
                  lost,
                  m_policy == AtmDropPolicy::TAIL ? AtmDropReason::TAIL_DROP
                                                  : AtmDropReason::PARTIAL);
        if (arrival.kept == 0)
        {
            return; // only tail drop loses every cell of a frame it did not refuse as a whole
        }
        AtmFrameTag tag;
        arrival.frame->PeekPacketTag(tag);
        tag.SetCarriedCells(arrival.kept);
        arrival.frame->ReplacePacketTag(tag);
    }
    Simulator::Schedule(arrival.lastDeparture - Simulator::Now(),
                        &AtmCellPort::Release,
                        this,
                        arrival.frame,
                        arrival.protocol);
}

void
AtmCellPort::Release(Ptr<Packet> frame, uint16_t protocol)
{
    m_device->Send(frame, m_device->GetBroadcast(), protocol);
}

void
AtmCellPort::Advance(Time t)
{
    while (true)
    {
        // The next cell to arrive among the frames entering; ties go to the earlier frame.
        Arrival* first = nullptr;
        Time when;
        for (auto& arrival : m_arrivals)
        {
            if (arrival.next < arrival.cells)
            {
                const Time at = NextCellTime(arrival);
                if (at <= t && (!first || at < when))
                {
                    first = &arrival;
                    when = at;
                }
            }
        }
        if (!first)
        {
            break;
        }
        Depart(when);
        ArriveCell(*first, when);
        ++first->next;
    }
    Depart(t);
}

void
AtmCellPort::Depart(Time t)
{
    while (!m_buffer.empty() && m_buffer.front().departure <= t)
    {
        const uint32_t vc = m_buffer.front().vc;
        m_buffer.pop_front();
        if (--m_vcCells[vc] == 0)
        {
            --m_activeVcs;
        }
    }
}

void
AtmCellPort::ArriveCell(Arrival& arrival, Time t)
{
    const bool room = m_buffer.size() < m_maxCells;
    bool keep = room;
    if (m_policy != AtmDropPolicy::TAIL)
    {
        arrival.cut = arrival.cut || !room;
        if (arrival.cut && m_partialFrames == AtmPartialFrames::PPD)
        {
            keep = room && arrival.next + 1 == arrival.cells; // PPD keeps the EOM cell
        }
    }
    if (keep)
    {
        arrival.lastDeparture = BufferCell(arrival.vc, t);
        ++arrival.kept;
    }
}

Time
AtmCellPort::BufferCell(uint32_t vc, Time t)
{
    if (t >= m_lastDeparture)
    {
        m_busyStart = t; // the link was idle: a new busy period
        m_busyCells = 0;
    }
    ++m_busyCells;
    m_lastDeparture = m_busyStart + CellTimes(m_busyCells, m_linkRate.GetBitRate());
    if (vc >= m_vcCells.size())
    {
        m_vcCells.resize(vc + 1, 0);
    }
    if (m_vcCells[vc]++ == 0)
    {
        ++m_activeVcs;
    }
    m_buffer.push_back({vc, m_lastDeparture});
    return m_lastDeparture;
}

void
AtmCellPort::CountDrop(uint32_t vc, uint32_t cells, AtmDropReason reason)
{
    NS_LOG_LOGIC("vc " << vc << ": " << cells << " cells dropped, " << ToString(reason));
    m_drops.Add(reason, cells);
    m_cellDropTrace(vc, cells, reason);
}

} // namespace ns3
