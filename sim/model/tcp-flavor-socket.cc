#include "model/tcp-flavor-socket.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFlavorSocket");
NS_OBJECT_ENSURE_REGISTERED(TcpFlavorSocket);

TypeId
TcpFlavorSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpFlavorSocket")
            .SetParent<TcpSocketBase>()
            .SetGroupName("Satnet")
            .AddConstructor<TcpFlavorSocket>()
            .AddAttribute("Flavor",
                          "Loss recovery: vanilla (timeouts only), reno, newreno or sack; "
                          "also sets the Sack attribute (on for sack only)",
                          EnumValue(TcpFlavor::NEWRENO),
                          MakeEnumAccessor<TcpFlavor>(&TcpFlavorSocket::SetFlavor,
                                                      &TcpFlavorSocket::GetFlavor),
                          MakeTcpFlavorChecker())
            .AddAttribute("TimerClock",
                          "Clock of the data retransmission timer: perConnection (it fires "
                          "exactly RTO after it was set) or shared (one clock for all "
                          "connections ticking every TimerTick() from time 0, as the slow timer "
                          "of BSD-derived TCPs: it fires on the first tick at or after now + "
                          "RTO). The RTO is the same either way",
                          EnumValue(TimerClock::PER_CONNECTION),
                          MakeEnumAccessor<TimerClock>(&TcpFlavorSocket::m_timerClock),
                          MakeTimerClockChecker())
            .AddTraceSource("RetransmittedSegments",
                            "Data segments retransmitted so far",
                            MakeTraceSourceAccessor(&TcpFlavorSocket::m_retransmittedSegments),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("Timeouts",
                            "Retransmission timeouts that fired with data outstanding",
                            MakeTraceSourceAccessor(&TcpFlavorSocket::m_timeouts),
                            "ns3::TracedValueCallback::Uint64")
            .AddTraceSource("FastRetransmits",
                            "Fast retransmits (entries into fast recovery)",
                            MakeTraceSourceAccessor(&TcpFlavorSocket::m_fastRetransmits),
                            "ns3::TracedValueCallback::Uint64");
    return tid;
}

TypeId
TcpFlavorSocket::GetInstanceTypeId() const
{
    return GetTypeId();
}

TcpFlavorSocket::TcpFlavorSocket()
{
    NS_LOG_FUNCTION(this);
}

TcpFlavorSocket::TcpFlavorSocket(const TcpFlavorSocket& sock)
    : TcpSocketBase(sock),
      m_flavor(sock.m_flavor),
      m_timerClock(sock.m_timerClock)
{
    NS_LOG_FUNCTION(this);
}

void
TcpFlavorSocket::NotifyConstructionCompleted()
{
    TcpSocketBase::NotifyConstructionCompleted();
    // Attributes are constructed from this class up to its parents, so the parent's Sack
    // default overrode what SetFlavor() chose.
    m_sackEnabled = (m_flavor == TcpFlavor::SACK);
}

void
TcpFlavorSocket::SetFlavor(TcpFlavor flavor)
{
    NS_LOG_FUNCTION(this << ToString(flavor));
    NS_ABORT_MSG_UNLESS(m_state == CLOSED, "TcpFlavorSocket: the flavor is fixed once connected");
    m_flavor = flavor;
    m_sackEnabled = (flavor == TcpFlavor::SACK);
}

TcpFlavor
TcpFlavorSocket::GetFlavor() const
{
    return m_flavor;
}

uint64_t
TcpFlavorSocket::GetRetransmittedSegments() const
{
    return m_retransmittedSegments;
}

uint64_t
TcpFlavorSocket::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
TcpFlavorSocket::GetFastRetransmits() const
{
    return m_fastRetransmits;
}

uint32_t
TcpFlavorSocket::GetCongestionWindow() const
{
    return m_tcb->m_cWnd;
}

uint64_t
TcpFlavorSocket::GetRttSamples() const
{
    return m_rtt->GetNSamples();
}

uint64_t
TcpFlavorSocket::GetIdleRestarts() const
{
    return 0; // ns-3's TcpSocketBase has no slow-start restart
}

Ptr<TcpSocketBase>
TcpFlavorSocket::Fork()
{
    return CopyObject<TcpFlavorSocket>(this);
}

bool
TcpFlavorSocket::IsPartialAckInRecovery(SequenceNumber32 ack) const
{
    return m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
           ack > m_txBuffer->HeadSequence() && ack < m_recover;
}

bool
TcpFlavorSocket::IgnoresDupAck(SequenceNumber32 ack) const
{
    switch (m_flavor)
    {
    case TcpFlavor::VANILLA:
        return true;
    case TcpFlavor::RENO:
    case TcpFlavor::NEWRENO:
        // In fast recovery duplicate ACKs inflate the window; in CA_LOSS ns-3 ignores them.
        return m_fastRetransmitGuarded && ack <= m_fastRetransmitGuard &&
               m_tcb->m_congState != TcpSocketState::CA_RECOVERY;
    case TcpFlavor::SACK:
        return false;
    }
    return false;
}

void
TcpFlavorSocket::ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    if (m_flavor == TcpFlavor::RENO && IsPartialAckInRecovery(tcpHeader.GetAckNumber()))
    {
        // Reno leaves recovery on this ACK. Drop the pseudo-SACKs ns-3 counts for duplicate ACKs
        // first: otherwise discarding the acknowledged data marks the new head lost and it would
        // be retransmitted at once, which is NewReno's partial-ACK behaviour.
        m_txBuffer->ResetRenoSack();
    }
    TcpSocketBase::ReceivedAck(packet, tcpHeader);
}

void
TcpFlavorSocket::ProcessAck(const SequenceNumber32& ackNumber,
                            bool scoreboardUpdated,
                            uint32_t currentDelivered,
                            const SequenceNumber32& oldHeadSequence,
                            bool receivedData)
{
    NS_LOG_FUNCTION(this << ackNumber << oldHeadSequence);
    if (m_fastRetransmitGuarded && ackNumber > m_fastRetransmitGuard)
    {
        m_fastRetransmitGuarded = false;
    }
    // RFC 5681 duplicate ACK (only SACK runs with the SACK option).
    const bool isDupAck =
        ackNumber == oldHeadSequence && ackNumber < m_tcb->m_highTxMark && !receivedData;
    if (isDupAck && IgnoresDupAck(ackNumber))
    {
        NS_LOG_LOGIC("duplicate ACK ignored by " << ToString(m_flavor));
        return;
    }

    if (m_flavor == TcpFlavor::RENO && m_tcb->m_congState == TcpSocketState::CA_RECOVERY &&
        ackNumber > oldHeadSequence && ackNumber < m_recover)
    {
        // Present the partial ACK as covering the recovery point: ns-3 then leaves recovery with
        // cwnd = ssthresh and restarts the timer.
        const SequenceNumber32 recoveryPoint = m_recover;
        m_recover = ackNumber;
        TcpSocketBase::ProcessAck(ackNumber,
                                  scoreboardUpdated,
                                  currentDelivered,
                                  oldHeadSequence,
                                  receivedData);
        m_recover = recoveryPoint;
        LimitCongestionWindow();
        NS_LOG_DEBUG("Reno left recovery on partial ACK " << ackNumber << "; recovery point "
                                                          << recoveryPoint);
        return;
    }

    const auto stateBefore = m_tcb->m_congState;
    TcpSocketBase::ProcessAck(ackNumber,
                              scoreboardUpdated,
                              currentDelivered,
                              oldHeadSequence,
                              receivedData);
    LimitCongestionWindow();
    if (stateBefore != TcpSocketState::CA_RECOVERY &&
        m_tcb->m_congState == TcpSocketState::CA_RECOVERY)
    {
        m_fastRetransmits = m_fastRetransmits + 1;
        m_fastRetransmitGuard = m_recover;
        m_fastRetransmitGuarded = true;
    }
}

void
TcpFlavorSocket::LimitCongestionWindow()
{
    if (m_tcb->m_cWnd > kMaxCongestionWindow)
    {
        m_tcb->m_cWnd = kMaxCongestionWindow;
    }
    if (m_tcb->m_cWndInfl > kMaxCongestionWindow)
    {
        m_tcb->m_cWndInfl = kMaxCongestionWindow;
    }
}

void
TcpFlavorSocket::NewAck(const SequenceNumber32& seq, bool resetRTO)
{
    // In recovery ns-3 calls NewAck only for partial ACKs, restarting the timer on the first.
    if (m_flavor == TcpFlavor::NEWRENO && m_tcb->m_congState == TcpSocketState::CA_RECOVERY)
    {
        resetRTO = true;
    }
    TcpSocketBase::NewAck(seq, resetRTO);
    if (resetRTO && m_state != SYN_RCVD)
    {
        AlignRetxTimer(); // the base class set the timer afresh (unless it then stopped it)
    }
}

void
TcpFlavorSocket::ReTxTimeout()
{
    if (m_flavor == TcpFlavor::SACK)
    {
        // A timeout clears the scoreboard: everything outstanding is then marked lost and resent
        // (ns-3 alone keeps the SACKed segments, as RFC 6675 allows). SACKs arriving later
        // rebuild it.
        m_txBuffer->ResetRenoSack();
    }
    // The base class spends one data retry exactly when it handles a data timeout.
    const uint32_t retriesLeft = m_dataRetrCount;
    TcpSocketBase::ReTxTimeout();
    if (m_dataRetrCount < retriesLeft)
    {
        m_timeouts = m_timeouts + 1;
        m_fastRetransmitGuard = m_recover; // the highest sequence sent, set by the base class
        m_fastRetransmitGuarded = true;
    }
}

uint32_t
TcpFlavorSocket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    const bool isRetransmission = seq < m_tcb->m_highTxMark;
    const bool timerRunning = m_retxEvent.IsPending();
    const uint32_t size = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
    if (!timerRunning)
    {
        AlignRetxTimer(); // the base class starts the timer when none runs
    }
    m_dataSegmentsSent += size > 0 ? 1 : 0;
    if (isRetransmission && size > 0)
    {
        m_retransmittedSegments = m_retransmittedSegments + 1;
    }
    return size;
}

TimerClock
TcpFlavorSocket::GetTimerClock() const
{
    return m_timerClock;
}

Time
TcpFlavorSocket::TimerTick() const
{
    return GetClockGranularity();
}

Time
TcpFlavorSocket::RetxTimerDelay(Time rto) const
{
    if (m_timerClock == TimerClock::PER_CONNECTION)
    {
        return rto;
    }
    const Time now = Simulator::Now();
    return SharedClockExpiry(now + rto, TimerTick()) - now;
}

void
TcpFlavorSocket::AlignRetxTimer()
{
    if (m_timerClock == TimerClock::PER_CONNECTION || !m_retxEvent.IsPending())
    {
        return;
    }
    const Time now = Simulator::Now();
    const Time expiry = now + Simulator::GetDelayLeft(m_retxEvent);
    const Time onTick = SharedClockExpiry(expiry, TimerTick());
    if (onTick != expiry)
    {
        m_retxEvent.Cancel();
        m_retxEvent = Simulator::Schedule(onTick - now, &TcpFlavorSocket::ReTxTimeout, this);
    }
}

uint64_t
TcpFlavorSocket::GetDataSegmentsSent() const
{
    return m_dataSegmentsSent;
}

uint32_t
TcpFlavorSocket::GetSegmentSize() const
{
    return GetSegSize();
}

uint32_t
TcpFlavorSocket::GetUnacknowledgedBytes() const
{
    const SequenceNumber32 head = m_txBuffer->HeadSequence();
    const SequenceNumber32 high = m_tcb->m_highTxMark;
    return high > head ? high - head : 0;
}

void
TcpFlavorSocket::SetSendBuffer(uint32_t bytes)
{
    SetSndBufSize(bytes);
    const uint32_t room = GetTxAvailable();
    if (room > 0 && (m_state == ESTABLISHED || m_state == CLOSE_WAIT))
    {
        NotifySend(room);
    }
}

uint32_t
TcpFlavorSocket::GetTxAvailable() const
{
    const uint32_t size = m_txBuffer->Size();
    const uint32_t max = m_txBuffer->MaxBufferSize();
    return size >= max ? 0 : max - size;
}

int
TcpFlavorSocket::Send(Ptr<Packet> p, uint32_t flags)
{
    if (p->GetSize() > GetTxAvailable())
    {
        m_errno = ERROR_MSGSIZE;
        return -1;
    }
    return TcpSocketBase::Send(p, flags);
}

} // namespace ns3
