/*
 * The SACK scoreboard of ns-2's Sack1 TCP agent, in bytes.
 */
#ifndef SATNET_NS2_SACK_SCOREBOARD_H
#define SATNET_NS2_SACK_SCOREBOARD_H

#include "ns3/sequence-number.h"
#include "ns3/tcp-option-sack.h"

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

namespace ns3
{

/**
 * @brief What ns-2's ScoreBoard (tcp/scoreboard.cc) records for Sack1TcpAgent.
 *
 * It covers the bytes from the cumulative ACK up to the highest SACKed byte and marks which of
 * them were SACKed and which were retransmitted in the current recovery. NextHole() is ns-2's
 * GetNextRetran(): the first byte neither SACKed nor retransmitted, below the highest SACKed
 * byte (no duplicate-ACK threshold per hole, unlike RFC 6675's IsLost). A retransmission is
 * never marked lost again: a lost retransmission waits for the timeout.
 */
class Ns2SackScoreboard
{
  public:
    /**
     * Records the SACK blocks of an ACK (ns-2's UpdateScoreBoard + CheckUpdate).
     * @param ack the cumulative ACK number
     * @param blocks the ACK's SACK blocks
     * @return true when a block covers bytes not SACKed before
     */
    bool Update(SequenceNumber32 ack, const TcpOptionSack::SackList& blocks);
    /// Forgets everything (ns-2's ClearScoreBoard).
    void Clear();
    /**
     * @param seq first byte retransmitted
     * @param size bytes retransmitted
     */
    void MarkRetransmitted(SequenceNumber32 seq, uint32_t size);
    /**
     * @param ack the cumulative ACK number
     * @param mss segment size
     * @return the first hole to retransmit (start, bytes at most @p mss), if any
     */
    std::optional<std::pair<SequenceNumber32, uint32_t>> NextHole(SequenceNumber32 ack,
                                                                 uint32_t mss) const;

  private:
    /// Byte ranges [begin, end), disjoint and not adjacent.
    using Ranges = std::map<SequenceNumber32, SequenceNumber32>;

    /**
     * @param ranges range set to extend
     * @param begin first byte
     * @param end one past the last byte
     * @return bytes that were not in @p ranges before
     */
    static uint32_t Add(Ranges& ranges, SequenceNumber32 begin, SequenceNumber32 end);
    /**
     * @param ranges range set
     * @param seq a byte
     * @return the end of the range holding @p seq, if one does
     */
    static std::optional<SequenceNumber32> EndOfRangeHolding(const Ranges& ranges,
                                                             SequenceNumber32 seq);
    /// Drops what lies below @p ack.
    static void Trim(Ranges& ranges, SequenceNumber32 ack);

    Ranges m_sacked;        ///< SACKed bytes above the cumulative ACK
    Ranges m_retransmitted; ///< bytes retransmitted since the scoreboard was cleared
};

} // namespace ns3

#endif // SATNET_NS2_SACK_SCOREBOARD_H
