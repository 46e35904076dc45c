#include "model/ns2-sack-recovery.h"

#include "model/ns2-tcp-socket.h"

#include "ns3/tcp-tx-buffer.h"

#include <algorithm>

namespace ns3
{

void
Ns2SackRecovery::OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    if (m_fastRecovery)
    {
        RecoveryAck(sender, ack, oldHead);
        return;
    }
    sender.RecvNewAck(ack, oldHead);
    m_afterTimeout = false;
    m_scoreboard.Clear();
}

void
Ns2SackRecovery::OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack)
{
    if (m_fastRecovery)
    {
        RecoveryAck(sender, ack, ack);
        return;
    }
    if (!IgnoresDupAcks(sender) && m_scoreboard.Update(ack, m_ackSackBlocks) &&
        ++sender.m_dupacks == NUM_DUPACKS)
    {
        DupAckAction(sender);
    }
}

bool
Ns2SackRecovery::HoldsSend(const Ns2TcpSocket& sender) const
{
    return !m_fastRecovery && sender.m_dupacks > 0;
}

bool
Ns2SackRecovery::TakeSackBlocks(const TcpHeader& ack)
{
    m_ackSackBlocks.clear();
    if (!ack.HasOption(TcpOption::SACK))
    {
        return false;
    }
    m_ackSackBlocks =
        DynamicCast<const TcpOptionSack>(ack.GetOption(TcpOption::SACK))->GetSackList();
    return true;
}

std::optional<uint64_t>
Ns2SackRecovery::RecoveryWindow(const Ns2TcpSocket& sender, uint64_t outstanding) const
{
    if (!m_fastRecovery)
    {
        return std::nullopt;
    }
    // Sack1: one more segment while pipe < cwnd, new data up to wnd_ past the ACK. Holes
    // go out in SendHoles(); with no new data the base class would resend an unSACKed
    // segment (RFC 6675's NextSeg rule 3), which Sack1 never does.
    if (m_pipe >= static_cast<int64_t>(sender.GetCwndPackets()) ||
        sender.m_tcb->m_nextTxSequence >= sender.m_txBuffer->TailSequence())
    {
        return 0;
    }
    const uint32_t mss = sender.GetSegSize();
    return std::min<uint64_t>(outstanding + mss, uint64_t{sender.WndPackets()} * mss);
}

void
Ns2SackRecovery::SegmentSent(bool bySendMuch)
{
    if (m_fastRecovery && bySendMuch)
    {
        ++m_pipe;
    }
}

void
Ns2SackRecovery::Timeout(Ns2TcpSocket& /* sender */)
{
    m_fastRecovery = false;
    m_afterTimeout = true;
    m_scoreboard.Clear();
}

void
Ns2SackRecovery::IdleRestart()
{
    m_afterTimeout = true;
    m_scoreboard.Clear();
}

bool
Ns2SackRecovery::IgnoresDupAcks(const Ns2TcpSocket& sender) const
{
    return m_afterTimeout && sender.m_fastRetransmitGuard;
}

void
Ns2SackRecovery::DupAckAction(Ns2TcpSocket& sender)
{
    const SequenceNumber32 head = sender.m_txBuffer->HeadSequence();
    if (sender.m_fastRetransmitGuard && !sender.PassedRecoverPoint(head))
    {
        return; // bug_fix_, as Reno's (Ns2RenoRecovery::MayFastRetransmit())
    }
    m_pipe = static_cast<int64_t>(sender.m_cwnd.Get()) - NUM_DUPACKS;
    sender.CutForFastRetransmit();
    m_fastRecovery = true;
    m_scoreboard.MarkRetransmitted(head, sender.GetSegSize());
    sender.FastRetransmit();
}

void
Ns2SackRecovery::RecoveryAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    --m_pipe;
    if (ack >= sender.m_recoverPoint)
    {
        m_fastRecovery = false;
        sender.Ns2NewAck(ack); // newack() only: cwnd stays halved for this ACK
        m_afterTimeout = false;
        m_scoreboard.Clear();
        sender.m_tcb->m_congState = TcpSocketState::CA_OPEN;
    }
    else if (ack > oldHead)
    {
        --m_pipe;
        m_scoreboard.Update(ack, m_ackSackBlocks);
        sender.m_backoff = 1;
        sender.NewAck(ack, true);
    }
    else if (!IgnoresDupAcks(sender) && m_scoreboard.Update(ack, m_ackSackBlocks) &&
             sender.m_dupacks > 0)
    {
        ++sender.m_dupacks;
    }
    SendHoles(sender);
}

void
Ns2SackRecovery::SendHoles(Ns2TcpSocket& sender)
{
    const uint32_t mss = sender.GetSegSize();
    while (m_fastRecovery && m_pipe < static_cast<int64_t>(sender.m_cwnd.Get()))
    {
        if (sender.m_sackHolesNeedUnsentData &&
            sender.m_tcb->m_nextTxSequence >= sender.m_txBuffer->TailSequence())
        {
            return; // send_much(): nothing of the application's left to send, so no loop
        }
        const SequenceNumber32 head = sender.m_txBuffer->HeadSequence();
        const auto hole = m_scoreboard.NextHole(head, mss);
        if (!hole || hole->first >= head + sender.WndPackets() * mss)
        {
            return;
        }
        m_scoreboard.MarkRetransmitted(hole->first, hole->second);
        sender.SendDataPacket(hole->first, hole->second, true);
    }
}

} // namespace ns3
