#include "model/ns2-newreno-recovery.h"

#include "model/ns2-tcp-socket.h"

#include "ns3/tcp-tx-buffer.h"

namespace ns3
{

void
Ns2NewRenoRecovery::OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    using CwndAction = Ns2TcpSocket::CwndAction;
    if (sender.Recovered(ack) || sender.m_lastAction != CwndAction::DUPACK)
    {
        if (m_dupwnd > 0)
        {
            m_dupwnd = 0;
            if (sender.m_lastAction == CwndAction::DUPACK)
            {
                sender.m_lastAction = CwndAction::EXITED;
            }
        }
        sender.RecvNewAck(ack, oldHead);
        return;
    }
    // Partial ACK (partialnewack_helper): restart the timer, deflate, resend the next hole;
    // dupacks_ is kept, so nothing else is sent on this ACK.
    m_dupwnd = 0;
    sender.NewAck(ack, true);
    if (sender.m_rttActive && ack >= sender.m_rttEnd)
    {
        sender.m_rttActive = false;
        sender.m_backoff = 1;
    }
    sender.RetransmitHead();
}

void
Ns2NewRenoRecovery::OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack)
{
    Ns2RenoRecovery::OnDupAck(sender, ack);
    // newreno_changes_: one new segment for every two duplicate ACKs.
    if (sender.m_dupacks > NUM_DUPACKS && sender.m_dupacks % 2 == 1)
    {
        sender.SendOneNew();
    }
}

bool
Ns2NewRenoRecovery::HoldsSend(const Ns2TcpSocket& sender) const
{
    return sender.m_dupacks > 0;
}

bool
Ns2NewRenoRecovery::MayFastRetransmit(const Ns2TcpSocket& sender) const
{
    // bug_fix_ without Reno's exception: not while still in that recovery either.
    return sender.PassedRecoverPoint(sender.m_txBuffer->HeadSequence());
}

} // namespace ns3
