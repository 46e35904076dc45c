#include "model/ns2-sack-scoreboard.h"

#include <algorithm>

namespace ns3
{

uint32_t
Ns2SackScoreboard::Add(Ranges& ranges, SequenceNumber32 begin, SequenceNumber32 end)
{
    if (!(begin < end))
    {
        return 0;
    }
    uint32_t covered = 0;
    // Merge every range that overlaps or touches [begin, end).
    auto it = ranges.upper_bound(begin);
    if (it != ranges.begin() && !(std::prev(it)->second < begin))
    {
        --it;
    }
    SequenceNumber32 newBegin = begin;
    SequenceNumber32 newEnd = end;
    while (it != ranges.end() && !(end < it->first))
    {
        const SequenceNumber32 lo = std::max(it->first, begin);
        const SequenceNumber32 hi = std::min(it->second, end);
        if (lo < hi)
        {
            covered += hi - lo;
        }
        newBegin = std::min(newBegin, it->first);
        newEnd = std::max(newEnd, it->second);
        it = ranges.erase(it);
    }
    ranges.emplace(newBegin, newEnd);
    return (end - begin) - covered;
}

std::optional<SequenceNumber32>
Ns2SackScoreboard::EndOfRangeHolding(const Ranges& ranges, SequenceNumber32 seq)
{
    auto it = ranges.upper_bound(seq);
    if (it == ranges.begin())
    {
        return std::nullopt;
    }
    --it;
    if (seq < it->second)
    {
        return it->second;
    }
    return std::nullopt;
}

void
Ns2SackScoreboard::Trim(Ranges& ranges, SequenceNumber32 ack)
{
    while (!ranges.empty() && !(ack < ranges.begin()->second))
    {
        ranges.erase(ranges.begin());
    }
    if (!ranges.empty() && ranges.begin()->first < ack)
    {
        const SequenceNumber32 end = ranges.begin()->second;
        ranges.erase(ranges.begin());
        ranges.emplace(ack, end);
    }
}

bool
Ns2SackScoreboard::Update(SequenceNumber32 ack, const TcpOptionSack::SackList& blocks)
{
    Trim(m_sacked, ack);
    Trim(m_retransmitted, ack);
    uint32_t added = 0;
    for (const auto& [begin, end] : blocks)
    {
        if (ack < end)
        {
            added += Add(m_sacked, std::max(begin, ack), end);
        }
    }
    return added > 0;
}

void
Ns2SackScoreboard::Clear()
{
    m_sacked.clear();
    m_retransmitted.clear();
}

void
Ns2SackScoreboard::MarkRetransmitted(SequenceNumber32 seq, uint32_t size)
{
    Add(m_retransmitted, seq, seq + size);
}

std::optional<std::pair<SequenceNumber32, uint32_t>>
Ns2SackScoreboard::NextHole(SequenceNumber32 ack, uint32_t mss) const
{
    if (m_sacked.empty())
    {
        return std::nullopt;
    }
    const SequenceNumber32 highestSacked = m_sacked.rbegin()->second;
    SequenceNumber32 seq = ack;
    while (seq < highestSacked)
    {
        if (auto end = EndOfRangeHolding(m_sacked, seq))
        {
            seq = *end;
            continue;
        }
        if (auto end = EndOfRangeHolding(m_retransmitted, seq))
        {
            seq = *end;
            continue;
        }
        // The hole ends at the next SACKed or retransmitted byte.
        SequenceNumber32 holeEnd = seq + mss;
        for (const Ranges* r : {&m_sacked, &m_retransmitted})
        {
            auto next = r->upper_bound(seq);
            if (next != r->end())
            {
                holeEnd = std::min(holeEnd, next->first);
            }
        }
        return std::make_pair(seq, static_cast<uint32_t>(holeEnd - seq));
    }
    return std::nullopt;
}

} // namespace ns3
