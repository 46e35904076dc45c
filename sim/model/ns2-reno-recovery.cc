#include "model/ns2-reno-recovery.h"

#include "model/ns2-tcp-socket.h"

#include "ns3/tcp-tx-buffer.h"

namespace ns3
{

void
Ns2RenoRecovery::OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    // Any new ACK ends fast recovery: the window deflates to cwnd (= ssthresh).
    if (sender.m_lastAction == Ns2TcpSocket::CwndAction::DUPACK)
    {
        sender.m_lastAction = Ns2TcpSocket::CwndAction::EXITED;
    }
    m_dupwnd = 0;
    sender.RecvNewAck(ack, oldHead);
}

void
Ns2RenoRecovery::OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 /* ack */)
{
    if (++sender.m_dupacks == NUM_DUPACKS)
    {
        DupAckAction(sender);
        m_dupwnd = NUM_DUPACKS; // also when bug_fix_ refused (no exitFastRetrans_ in 2.1b3)
    }
    else if (sender.m_dupacks > NUM_DUPACKS)
    {
        ++m_dupwnd;
    }
}

bool
Ns2RenoRecovery::HoldsSend(const Ns2TcpSocket& sender) const
{
    return sender.m_dupacks > 0 && sender.m_dupacks < NUM_DUPACKS;
}

uint32_t
Ns2RenoRecovery::WindowInflation() const
{
    return m_dupwnd; // RenoTcpAgent::window(): inflated in fast recovery
}

void
Ns2RenoRecovery::Timeout(Ns2TcpSocket& sender)
{
    m_dupwnd = 0;
    sender.m_dupacks = 0;
}

bool
Ns2RenoRecovery::MayFastRetransmit(const Ns2TcpSocket& sender) const
{
    // bug_fix_: no second fast retransmit for losses of the same window (Reno: unless still
    // in that recovery). "recovered" is highest_ack_ > recover_ (tcp.cc from 1997 to 2.35,
    // Sack1 1998): duplicate ACKs of the recovery point itself still wait for the timer.
    return sender.PassedRecoverPoint(sender.m_txBuffer->HeadSequence()) ||
           sender.m_lastAction == Ns2TcpSocket::CwndAction::DUPACK;
}

void
Ns2RenoRecovery::DupAckAction(Ns2TcpSocket& sender)
{
    if (sender.m_fastRetransmitGuard && !MayFastRetransmit(sender))
    {
        return;
    }
    sender.CutForFastRetransmit();
    sender.FastRetransmit();
}

} // namespace ns3
