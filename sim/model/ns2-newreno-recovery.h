/*
 * ns-2's NewReno recovery (tcp-newreno.cc): Reno's, staying in recovery through partial ACKs.
 */
#ifndef SATNET_NS2_NEWRENO_RECOVERY_H
#define SATNET_NS2_NEWRENO_RECOVERY_H

#include "model/ns2-reno-recovery.h"

namespace ns3
{

/**
 * @brief NEWRENO (tcp-newreno.cc, NewRenoTcpAgent, with newreno_changes_ = 1,
 * newreno_changes1_ = 0): as Reno, but a partial ACK retransmits the next segment, restarts
 * the timer and deflates the window to cwnd; it stays in recovery until the recovery point is
 * acknowledged; in recovery one new segment goes out for every two duplicate ACKs and nothing
 * else.
 */
class Ns2NewRenoRecovery : public Ns2RenoRecovery
{
  public:
    void OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead) override;
    void OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack) override;
    bool HoldsSend(const Ns2TcpSocket& sender) const override;

  protected:
    bool MayFastRetransmit(const Ns2TcpSocket& sender) const override;
};

} // namespace ns3

#endif // SATNET_NS2_NEWRENO_RECOVERY_H
