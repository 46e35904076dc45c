#include "model/ns2-vanilla-recovery.h"

#include "model/ns2-tcp-socket.h"

namespace ns3
{

void
Ns2VanillaRecovery::OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    sender.RecvNewAck(ack, oldHead);
}

void
Ns2VanillaRecovery::OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 /* ack */)
{
    ++sender.m_dupacks; // the study's Vanilla has no fast retransmit
}

bool
Ns2VanillaRecovery::HoldsSend(const Ns2TcpSocket& /* sender */) const
{
    return false;
}

} // namespace ns3
