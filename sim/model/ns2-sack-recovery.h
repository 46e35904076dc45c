/*
 * ns-2's Sack1 recovery (tcp-sack1.cc): the scoreboard's holes first, pipe_ against cwnd.
 */
#ifndef SATNET_NS2_SACK_RECOVERY_H
#define SATNET_NS2_SACK_RECOVERY_H

#include "model/ns2-recovery.h"
#include "model/ns2-sack-scoreboard.h"

#include "ns3/tcp-option-sack.h"

namespace ns3
{

/**
 * @brief SACK (tcp-sack1.cc, Sack1TcpAgent, and scoreboard.cc): on the 3rd duplicate ACK that
 * SACKs new data: pipe = cwnd - 3, halve, retransmit the first hole; in recovery every ACK
 * takes one off pipe, a partial ACK two (and restarts the timer); while pipe < cwnd, holes
 * first, then new data; recovery ends when the recovery point is acknowledged; a timeout
 * clears the scoreboard and ignores duplicate ACKs until the next new ACK. Without
 * FastRetransmitGuard neither that nor bug_fix_ holds back a 3rd duplicate ACK.
 */
class Ns2SackRecovery : public Ns2Recovery
{
  public:
    void OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead) override;
    void OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack) override;
    bool HoldsSend(const Ns2TcpSocket& sender) const override;
    bool TakeSackBlocks(const TcpHeader& ack) override;
    std::optional<uint64_t> RecoveryWindow(const Ns2TcpSocket& sender,
                                           uint64_t outstanding) const override;
    void SegmentSent(bool bySendMuch) override;
    void Timeout(Ns2TcpSocket& sender) override;
    void IdleRestart() override;

  private:
    /**
     * @param sender the socket
     * @return true while duplicate ACKs are ignored: after a timeout, with FastRetransmitGuard
     */
    bool IgnoresDupAcks(const Ns2TcpSocket& sender) const;
    /**
     * Sack1's fast retransmit, on the 3rd duplicate ACK that SACKs new data.
     * @param sender the socket
     */
    void DupAckAction(Ns2TcpSocket& sender);
    /**
     * Sack1's recv() while in fast recovery.
     * @param sender the socket
     * @param ack the ACK number
     * @param oldHead the first unacknowledged byte before it (@p ack for a duplicate ACK)
     */
    void RecoveryAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead);
    /**
     * Sends SACK holes while pipe < cwnd (the first part of Sack1's send_much()).
     * @param sender the socket
     */
    void SendHoles(Ns2TcpSocket& sender);

    Ns2SackScoreboard m_scoreboard; ///< scb_
    bool m_fastRecovery{false};     ///< fastrecov_
    bool m_afterTimeout{false};     ///< timeout_: duplicate ACKs ignored
    int64_t m_pipe{0};              ///< pipe_, packets
    TcpOptionSack::SackList m_ackSackBlocks; ///< SACK blocks of the ACK being processed
};

} // namespace ns3

#endif // SATNET_NS2_SACK_RECOVERY_H
