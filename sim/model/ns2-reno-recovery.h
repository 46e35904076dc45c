/*
 * ns-2's Reno recovery (tcp-reno.cc): fast retransmit, window inflation, out on any new ACK.
 */
#ifndef SATNET_NS2_RENO_RECOVERY_H
#define SATNET_NS2_RENO_RECOVERY_H

#include "model/ns2-recovery.h"

namespace ns3
{

/**
 * @brief RENO (tcp-reno.cc, RenoTcpAgent): the 3rd duplicate ACK halves (cwnd = ssthresh =
 * window/2), retransmits and inflates the window by 3 + one per further duplicate ACK; any new
 * ACK ends recovery. bug_fix_ (FastRetransmitGuard): no new fast retransmit before the ACK
 * passes the highest sequence sent at the last one (or timeout). Duplicate ACKs also inflate
 * outside recovery (no exitFastRetrans_).
 */
class Ns2RenoRecovery : public Ns2Recovery
{
  public:
    void OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead) override;
    void OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack) override;
    bool HoldsSend(const Ns2TcpSocket& sender) const override;
    uint32_t WindowInflation() const override;
    void Timeout(Ns2TcpSocket& sender) override;

  protected:
    /**
     * bug_fix_'s test in dupack_action(), applied only with Ns2TcpSocket's FastRetransmitGuard.
     * @param sender the socket
     * @return true when the 3rd duplicate ACK may fast-retransmit
     */
    virtual bool MayFastRetransmit(const Ns2TcpSocket& sender) const;

    uint32_t m_dupwnd{0}; ///< dupwnd_: window inflation in fast recovery, packets

  private:
    /**
     * dupack_action(), on the 3rd duplicate ACK.
     * @param sender the socket
     */
    void DupAckAction(Ns2TcpSocket& sender);
};

} // namespace ns3

#endif // SATNET_NS2_RENO_RECOVERY_H
