/*
 * The study's Vanilla TCP on ns-2: losses found by the timer only.
 */
#ifndef SATNET_NS2_VANILLA_RECOVERY_H
#define SATNET_NS2_VANILLA_RECOVERY_H

#include "model/ns2-recovery.h"

namespace ns3
{

/**
 * @brief VANILLA: Agent/TCP (TcpAgent::recv()) with fast retransmit off, as the study's
 * Vanilla: timeouts only (ns-2's Tahoe would fast-retransmit on 3 duplicate ACKs).
 *
 * Duplicate ACKs are counted and nothing else; every ACK calls send_much().
 */
class Ns2VanillaRecovery : public Ns2Recovery
{
  public:
    void OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead) override;
    void OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack) override;
    bool HoldsSend(const Ns2TcpSocket& sender) const override;
};

} // namespace ns3

#endif // SATNET_NS2_VANILLA_RECOVERY_H
