#include "model/ns2-tcp-socket.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/uinteger.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("Ns2TcpSocket");
NS_OBJECT_ENSURE_REGISTERED(Ns2TcpSocket);

namespace
{
constexpr int SRTT_SHIFT = 3;        // t_srtt_ in 1/8 tick (T_SRTT_BITS)
constexpr int RTTVAR_SHIFT = 2;      // t_rttvar_ in 1/4 tick (T_RTTVAR_BITS)
constexpr int RTTVAR_EXP = 2;        // rto = srtt + 2^rttvar_exp_ x rttvar
constexpr uint32_t MAX_BACKOFF = 64; // rtt_backoff() stops doubling here
constexpr uint32_t CLOBBER_BACKOFF = 8; // past this backoff srtt is folded into rttvar
constexpr double MAX_CWND_BYTES = 2147483648.0; // m_tcb's 32-bit windows stay below 2^31
} // namespace

TypeId
Ns2TcpSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::Ns2TcpSocket")
            .SetParent<TcpFlavorSocket>()
            .SetGroupName("Satnet")
            .AddConstructor<Ns2TcpSocket>()
            .AddAttribute("Tick",
                          "Timer granularity (ns-2's tcpTick_): RTT samples count the tick "
                          "boundaries between send and ACK, the RTO is whole ticks",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&Ns2TcpSocket::m_tick),
                          MakeTimeChecker(TimeStep(1)))
            .AddAttribute("InitialRto",
                          "RTO before the first RTT sample (ns-2's rtxcur_init_: 6 s until "
                          "2006, 3 s in ns-2.35)",
                          TimeValue(Seconds(6)),
                          MakeTimeAccessor(&Ns2TcpSocket::m_initialRto),
                          MakeTimeChecker(TimeStep(1)))
            .AddAttribute("SlowStartRestart",
                          "ns-2's slow_start_restart_ with restart_bugfix_ (both true in "
                          "ns-default.tcl): the retransmission timer keeps running once "
                          "everything is acknowledged, and expiring with nothing outstanding it "
                          "sets cwnd to 1 (ssthresh kept, no backoff); so a connection idle for "
                          "longer than the RTO starts its next data in slow start",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Ns2TcpSocket::m_slowStartRestart),
                          MakeBooleanChecker())
            .AddAttribute("SackHolesNeedUnsentData",
                          "Sack1 in fast recovery resends a hole only while the application "
                          "has data not yet sent: send_much()'s loop runs while t_seqno_ < "
                          "curseq_ (tcp-sack1.cc rev. 1.23, April 1998, and ns-2.1b8a); ns-2 "
                          "later made it last_ack_ + 1 < curseq_ (false here). The hole sent on "
                          "the third duplicate ACK is not gated",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Ns2TcpSocket::m_sackHolesNeedUnsentData),
                          MakeBooleanChecker())
            .AddAttribute("FastRetransmitGuard",
                          "ns-2's bug_fix_ (on in ns-default.tcl): a 3rd duplicate ACK "
                          "fast-retransmits only once the cumulative ACK has passed the highest "
                          "sequence sent at the last fast retransmit or timeout, so losses of "
                          "one window get one fast retransmit and one halving (Sack1 also "
                          "ignores duplicate ACKs after a timeout until new data is "
                          "acknowledged). false: no such guard, every 3rd duplicate ACK "
                          "retransmits and halves again (Floyd's guard left out)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&Ns2TcpSocket::m_fastRetransmitGuard),
                          MakeBooleanChecker())
            .AddAttribute("ByteWindow",
                          "Count the send window in bytes, as a BSD sender's snd_cwnd: "
                          "min(cwnd x MSS, the peer's window) with cwnd not floored to whole "
                          "packets (the same cwnd arithmetic: +MSS^2/cwnd bytes per ACK in "
                          "congestion avoidance), and every byte it allows is sent at once, "
                          "silly-window avoidance off, so a segment below one MSS goes out "
                          "mid-file. false: ns-2's window() of whole packets",
                          BooleanValue(false),
                          MakeBooleanAccessor(&Ns2TcpSocket::m_byteWindow),
                          MakeBooleanChecker())
            .AddAttribute("TickPhase",
                          "Phase of this socket's tick clock as a fraction of a tick, drawn "
                          "once per socket (ns-2's boot_time_ = uniform(tcpTick_))",
                          StringValue("ns3::UniformRandomVariable[Min=0.0|Max=1.0]"),
                          MakePointerAccessor(&Ns2TcpSocket::m_tickPhase),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("SlowStart",
                          "How the first slow start opens the window per new ACK covering k "
                          "segments: stcp +1 (ns-2's opencwnd()); bc, Byte Counting (Allman "
                          "1998), +min(k, L); dbc, Decreasing Byte Counting (Barakat & Altman "
                          "2000), +min(k, L) / d(W) with d(W) = 1 + (DbcMaxD - 1)(W - 1) / "
                          "(W_th - 1), W the window and W_th the initial ssthresh, in packets. "
                          "Later slow starts (after a timeout, fast retransmit or idle "
                          "restart) are stcp",
                          EnumValue(SlowStartPolicy::STCP),
                          MakeEnumAccessor<SlowStartPolicy>(&Ns2TcpSocket::m_slowStart),
                          MakeEnumChecker(SlowStartPolicy::STCP,
                                          "stcp",
                                          SlowStartPolicy::BC,
                                          "bc",
                                          SlowStartPolicy::DBC,
                                          "dbc"))
            .AddAttribute("ByteCountingLimit",
                          "L: the most segments one ACK may add under bc and dbc (Allman "
                          "1998 and Barakat & Altman 2000 use 2)",
                          UintegerValue(2),
                          MakeUintegerAccessor(&Ns2TcpSocket::m_byteCountingLimit),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("DbcMaxD",
                          "d_max of dbc: the slow start's d when the window reaches the "
                          "initial ssthresh (Barakat & Altman 2000, sec. 5.2: 2)",
                          DoubleValue(2),
                          MakeDoubleAccessor(&Ns2TcpSocket::m_dbcMaxD),
                          MakeDoubleChecker<double>(1))
            .AddTraceSource("CongestionWindowPackets",
                            "ns-2's cwnd_, in packets",
                            MakeTraceSourceAccessor(&Ns2TcpSocket::m_cwnd),
                            "ns3::TracedValueCallback::Double")
            .AddTraceSource("Backoff",
                            "ns-2's t_backoff_, the RTO multiplier",
                            MakeTraceSourceAccessor(&Ns2TcpSocket::m_backoff),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

TypeId
Ns2TcpSocket::GetInstanceTypeId() const
{
    return GetTypeId();
}

Ns2TcpSocket::Ns2TcpSocket()
    : m_recovery(Ns2Recovery::Create(GetFlavor()))
{
    NS_LOG_FUNCTION(this);
}

Ns2TcpSocket::Ns2TcpSocket(const Ns2TcpSocket& sock)
    : TcpFlavorSocket(sock),
      m_tickPhase(sock.m_tickPhase),
      m_tick(sock.m_tick),
      m_initialRto(sock.m_initialRto),
      m_slowStartRestart(sock.m_slowStartRestart),
      m_sackHolesNeedUnsentData(sock.m_sackHolesNeedUnsentData),
      m_fastRetransmitGuard(sock.m_fastRetransmitGuard),
      m_byteWindow(sock.m_byteWindow),
      m_slowStart(sock.m_slowStart),
      m_byteCountingLimit(sock.m_byteCountingLimit),
      m_dbcMaxD(sock.m_dbcMaxD),
      m_recovery(Ns2Recovery::Create(GetFlavor()))
{
    NS_LOG_FUNCTION(this);
}

Ptr<TcpSocketBase>
Ns2TcpSocket::Fork()
{
    return CopyObject<Ns2TcpSocket>(this);
}

void
Ns2TcpSocket::SetFlavor(TcpFlavor flavor)
{
    TcpFlavorSocket::SetFlavor(flavor);
    m_recovery = Ns2Recovery::Create(flavor);
}

void
Ns2TcpSocket::SetInitialWindow(uint32_t packets)
{
    NS_ABORT_MSG_IF(GetDataSegmentsSent() > 0,
                    "Ns2TcpSocket::SetInitialWindow: data has been sent already");
    if (m_state == CLOSED)
    {
        SetInitialCwnd(packets);
        return;
    }
    // The window may be set already (from InitialCwnd, by the request's ACK): set it itself.
    InitWindow();
    m_cwnd = packets;
    PublishWindow();
}

double
Ns2TcpSocket::GetCwndPackets() const
{
    return m_initialized ? m_cwnd.Get() : GetInitialCwnd();
}

uint32_t
Ns2TcpSocket::GetSsthreshPackets() const
{
    return m_initialized ? m_ssthresh : GetInitialSSThresh() / GetSegSize();
}

uint32_t
Ns2TcpSocket::GetBackoff() const
{
    return m_backoff;
}

uint64_t
Ns2TcpSocket::GetRttSamples() const
{
    return m_rttSamples;
}

int64_t
Ns2TcpSocket::GetLastRttTicks() const
{
    return m_lastRttTicks;
}

Time
Ns2TcpSocket::GetMinRtt() const
{
    return m_tick * m_minRttTicks;
}

uint64_t
Ns2TcpSocket::GetIdleRestarts() const
{
    return m_idleRestarts;
}

bool
Ns2TcpSocket::ResetSenderState()
{
    NS_LOG_FUNCTION(this);
    if (m_state != ESTABLISHED || m_txBuffer->Size() > 0 || GetDataSegmentsSent() == 0)
    {
        return false; // busy, or nothing sent yet: still a new connection's state
    }
    m_cwnd = GetInitialCwnd();
    m_ssthresh = m_initialSsthresh;
    m_dupacks = 0;
    m_lastAction = CwndAction::NONE;
    m_recoverSet = false;
    m_recovery = Ns2Recovery::Create(GetFlavor());
    m_rttActive = false;
    m_rttEndSet = false;
    m_srtt8 = 0;
    m_rttvar4 = 0;
    m_rtxcur = m_initialRto;
    m_backoff = 1;
    m_retxEvent.Cancel(); // nothing outstanding: a new connection has no timer running
    ++m_senderResets;
    PublishWindow();
    NS_LOG_DEBUG("sender reset: cwnd " << m_cwnd << ", ssthresh " << m_ssthresh);
    return true;
}

uint64_t
Ns2TcpSocket::GetSenderResets() const
{
    return m_senderResets;
}

Time
Ns2TcpSocket::GetCurrentRto() const
{
    // rtt_timeout(): backoff on the tick-rounded estimate, then the floors.
    const Time rtxcur = m_initialized ? m_rtxcur : m_initialRto;
    Time rto = rtxcur * static_cast<int64_t>(m_backoff.Get());
    rto = Max(rto, m_minRto);
    return Max(rto, m_tick * 2);
}

Time
Ns2TcpSocket::GetRtoWithoutBackoff() const
{
    const Time rtxcur = m_initialized ? m_rtxcur : m_initialRto;
    return Max(Max(rtxcur, m_minRto), m_tick * 2);
}

Time
Ns2TcpSocket::TimerTick() const
{
    return m_tick;
}

Time
Ns2TcpSocket::GetSmoothedRtt() const
{
    return m_tick * m_srtt8 / (1 << SRTT_SHIFT);
}

void
Ns2TcpSocket::InitWindow()
{
    if (m_initialized)
    {
        return;
    }
    m_initialized = true;
    m_cwnd = GetInitialCwnd();
    m_ssthresh = GetInitialSSThresh() / GetSegSize();
    m_initialSsthresh = m_ssthresh;
    m_rtxcur = m_initialRto;
    m_bootTime = m_tick * m_tickPhase->GetValue();
    PublishWindow();
}

uint32_t
Ns2TcpSocket::WndPackets() const
{
    return std::max<uint32_t>(1, std::max(m_maxWnd, m_rWnd.Get()) / GetSegSize());
}

uint32_t
Ns2TcpSocket::WindowPackets() const
{
    const double cwnd = std::floor(GetCwndPackets()) + m_recovery->WindowInflation();
    return static_cast<uint32_t>(std::min<double>(cwnd, WndPackets()));
}

SequenceNumber32
Ns2TcpSocket::MaxSeqEnd() const
{
    return m_tcb->m_highTxMark;
}

bool
Ns2TcpSocket::Recovered(SequenceNumber32 ack) const
{
    return !m_recoverSet || ack >= m_recoverPoint;
}

bool
Ns2TcpSocket::PassedRecoverPoint(SequenceNumber32 ack) const
{
    return !m_recoverSet || ack > m_recoverPoint;
}

void
Ns2TcpSocket::PublishWindow()
{
    const double mss = GetSegSize();
    m_tcb->m_cWnd = static_cast<uint32_t>(std::min(m_cwnd.Get() * mss, MAX_CWND_BYTES));
    m_tcb->m_cWndInfl =
        static_cast<uint32_t>(std::min((m_cwnd.Get() + m_recovery->WindowInflation()) * mss,
                                       MAX_CWND_BYTES));
    m_tcb->m_ssThresh = static_cast<uint32_t>(std::min(m_ssthresh * mss, MAX_CWND_BYTES));
}

uint64_t
Ns2TcpSocket::WindowBytes() const
{
    const uint64_t mss = GetSegSize();
    if (!m_byteWindow)
    {
        return WindowPackets() * mss;
    }
    const double cwnd = (GetCwndPackets() + m_recovery->WindowInflation()) * mss;
    return static_cast<uint64_t>(std::min(cwnd, double(std::max(m_maxWnd, m_rWnd.Get()))));
}

uint64_t
Ns2TcpSocket::UsableWindow() const
{
    if (m_holdSend)
    {
        return 0;
    }
    const SequenceNumber32 head = m_txBuffer->HeadSequence();
    const SequenceNumber32 next = m_tcb->m_nextTxSequence;
    const uint64_t outstanding = next > head ? static_cast<uint64_t>(next - head) : 0;
    const std::optional<uint64_t> recoveryWindow = m_recovery->RecoveryWindow(*this, outstanding);
    uint64_t window = recoveryWindow ? *recoveryWindow : WindowBytes();
    // ns-3's receiver really has a buffer of m_rWnd bytes: never send past it.
    window = std::min<uint64_t>(window, m_rWnd.Get());
    return window > outstanding ? window - outstanding : 0;
}

uint32_t
Ns2TcpSocket::AvailableWindow() const
{
    const uint64_t usable = UsableWindow();
    if (m_byteWindow && usable > 0 && usable < GetSegSize())
    {
        // TcpSocketBase::SendPendingData holds back a window below one MSS (silly-window
        // avoidance), which the study turned off: report a whole segment, and SendDataPacket
        // cuts the segment to the bytes the window really allows.
        return GetSegSize();
    }
    return static_cast<uint32_t>(usable);
}

void
Ns2TcpSocket::EstimateRtt(const TcpHeader& tcpHeader)
{
    // Samples are taken in ProcessAck (one timed segment); only forget the send history.
    const SequenceNumber32 ack = tcpHeader.GetAckNumber();
    while (!m_history.empty() && m_history.front().seq + m_history.front().count <= ack)
    {
        m_history.pop_front();
    }
}

uint32_t
Ns2TcpSocket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    InitWindow();
    if (m_byteWindow && !m_directOutput && seq == m_tcb->m_nextTxSequence)
    {
        // send_much()'s next segment gets the window's own bytes (AvailableWindow() rounded a
        // window below one MSS up to one); Sack1's holes lie below it and are not cut.
        maxSize = static_cast<uint32_t>(std::min<uint64_t>(maxSize, UsableWindow()));
        if (maxSize == 0)
        {
            return 0;
        }
    }
    m_rto = GetCurrentRto(); // the base class starts the timer with it when none runs
    const bool isNew = seq >= m_tcb->m_highTxMark;
    const bool nothingOutstanding = m_txBuffer->HeadSequence() >= m_tcb->m_highTxMark;
    const uint32_t size = TcpFlavorSocket::SendDataPacket(seq, maxSize, withAck);
    if (size > 0 && nothingOutstanding)
    {
        // output()'s force_set_rtx_timer: the idle timer's remaining time does not count.
        SetRtxTimer();
    }
    if (size > 0)
    {
        m_recovery->SegmentSent(!m_directOutput);
    }
    if (isNew && size > 0 && !m_rttActive)
    {
        // output(): time this segment unless one is being timed already.
        m_rttActive = true;
        if (!m_rttEndSet || seq >= m_rttEnd)
        {
            m_rttEnd = seq + size;
            m_rttEndSet = true;
            m_rttSent = Simulator::Now();
        }
    }
    return size;
}

void
Ns2TcpSocket::RttUpdate()
{
    // Tick boundaries crossed since the send: floor((now + boot) / tick) - floor((sent + boot) /
    // tick), i.e. ns-2's int((tao + fmod(sendtime + boot_time_, tick)) / tick).
    const int64_t tick = m_tick.GetTimeStep();
    const int64_t sentTick = (m_rttSent + m_bootTime).GetTimeStep() / tick;
    const int64_t nowTick = (Simulator::Now() + m_bootTime).GetTimeStep() / tick;
    const int64_t ticks = std::max<int64_t>(1, nowTick - sentTick);
    m_lastRttTicks = ticks;
    m_minRttTicks = m_rttSamples == 0 ? ticks : std::min(m_minRttTicks, ticks);
    ++m_rttSamples;
    if (m_srtt8 != 0)
    {
        int64_t delta = ticks - (m_srtt8 >> SRTT_SHIFT);
        m_srtt8 = std::max<int64_t>(1, m_srtt8 + delta);
        delta = std::abs(delta) - (m_rttvar4 >> RTTVAR_SHIFT);
        m_rttvar4 = std::max<int64_t>(1, m_rttvar4 + delta);
    }
    else
    {
        m_srtt8 = ticks << SRTT_SHIFT;
        m_rttvar4 = ticks << (RTTVAR_SHIFT - 1);
    }
    m_rtxcur =
        m_tick * (((m_rttvar4 << (RTTVAR_EXP + SRTT_SHIFT - RTTVAR_SHIFT)) + m_srtt8) >> SRTT_SHIFT);
    m_tcb->m_srtt = m_tick * (m_srtt8 >> SRTT_SHIFT);
    m_tcb->m_lastRtt = Simulator::Now() - m_rttSent;
    NS_LOG_DEBUG("RTT sample " << ticks << " ticks, srtt " << m_srtt8 << "/8, rttvar " << m_rttvar4
                               << "/4, rtxcur " << m_rtxcur.As(Time::MS));
}

void
Ns2TcpSocket::RttBackoff()
{
    if (m_backoff < MAX_BACKOFF)
    {
        m_backoff = m_backoff * 2;
    }
    if (m_backoff > CLOBBER_BACKOFF)
    {
        m_rttvar4 += m_srtt8 >> SRTT_SHIFT;
        m_srtt8 = 0;
    }
}

void
Ns2TcpSocket::SetRtxTimer()
{
    m_rto = GetCurrentRto();
    m_retxEvent.Cancel();
    m_retxEvent = Simulator::Schedule(RetxTimerDelay(m_rto), &Ns2TcpSocket::ReTxTimeout, this);
}

void
Ns2TcpSocket::ResetRtxTimer(bool backoff)
{
    if (backoff)
    {
        RttBackoff();
    }
    SetRtxTimer();
    m_rttActive = false;
}

void
Ns2TcpSocket::NewAck(const SequenceNumber32& seq, bool resetRTO)
{
    // newtimer(): restart unless the ACK passed t_seqno_ (after go-back-N) and everything sent
    // is acknowledged; with slow_start_restart_ off, stopping once all is acknowledged is the
    // same (the expiry would do nothing, and output() sets the timer afresh).
    const bool beforeNextSend = m_tcb->m_nextTxSequence >= seq;
    // The base class's bookkeeping without its RTO recomputation (which would end the backoff).
    TcpSocketBase::NewAck(seq, false);
    if (!resetRTO || m_state == SYN_RCVD)
    {
        return;
    }
    if (MaxSeqEnd() > seq || (m_slowStartRestart && beforeNextSend))
    {
        SetRtxTimer();
    }
    else
    {
        m_retxEvent.Cancel();
    }
}

void
Ns2TcpSocket::Ns2NewAck(SequenceNumber32 ack)
{
    // 2.1b3 order: the timer first (with the old backoff), then the RTT sample.
    NewAck(ack, true);
    m_dupacks = 0;
    if (m_rttActive && ack >= m_rttEnd)
    {
        m_backoff = 1; // Karn: only a segment first sent after the timeout gets here
        m_rttActive = false;
        RttUpdate();
    }
}

void
Ns2TcpSocket::OpenCwnd(uint32_t segmentsAcked)
{
    if (m_cwnd < m_ssthresh)
    {
        m_cwnd = m_cwnd + SlowStartIncrease(segmentsAcked);
    }
    else
    {
        m_cwnd = m_cwnd + 1.0 / m_cwnd;
    }
}

double
Ns2TcpSocket::SlowStartIncrease(uint32_t segmentsAcked) const
{
    // Every cut of cwnd (fast retransmit, timeout, idle restart) sets last_cwnd_action_ first.
    const bool firstSlowStart = m_lastAction == CwndAction::NONE;
    if (!firstSlowStart || m_slowStart == SlowStartPolicy::STCP)
    {
        return 1;
    }
    const double counted = std::min(segmentsAcked, m_byteCountingLimit);
    if (m_slowStart == SlowStartPolicy::BC || m_initialSsthresh <= 1)
    {
        return counted;
    }
    const double d = 1 + (m_dbcMaxD - 1) * (m_cwnd - 1) / (m_initialSsthresh - 1.0);
    return counted / d;
}

void
Ns2TcpSocket::RecvNewAck(SequenceNumber32 ack, SequenceNumber32 oldHead)
{
    const uint32_t mss = GetSegSize();
    const uint32_t segmentsAcked = (ack - oldHead + mss - 1) / mss;
    Ns2NewAck(ack);
    OpenCwnd(segmentsAcked);
    m_tcb->m_congState = TcpSocketState::CA_OPEN;
}

void
Ns2TcpSocket::Slowdown(double cwnd)
{
    const uint32_t halfWindow = WindowPackets() / 2;
    m_ssthresh = std::max<uint32_t>(halfWindow, 2);
    m_cwnd = std::max(1.0, cwnd > 0 ? cwnd : static_cast<double>(halfWindow));
    NS_LOG_DEBUG("slowdown: ssthresh " << m_ssthresh << " cwnd " << m_cwnd);
}

void
Ns2TcpSocket::RetransmitHead()
{
    m_directOutput = true;
    SendDataPacket(m_txBuffer->HeadSequence(), GetSegSize(), true);
    m_directOutput = false;
}

void
Ns2TcpSocket::SendOneNew()
{
    const SequenceNumber32 seq = m_tcb->m_nextTxSequence;
    const SequenceNumber32 limit = m_txBuffer->HeadSequence() + m_rWnd.Get();
    const uint32_t size = std::min(GetSegSize(), m_txBuffer->SizeFromSequence(seq));
    if (size == 0 || seq + size > limit)
    {
        return; // nothing queued, or past the receiver's buffer
    }
    m_directOutput = true;
    m_tcb->m_nextTxSequence += SendDataPacket(seq, size, true);
    m_directOutput = false;
}

void
Ns2TcpSocket::MarkRecoverPoint(CwndAction action)
{
    m_recoverPoint = MaxSeqEnd();
    m_recoverSet = true;
    m_lastAction = action;
}

void
Ns2TcpSocket::CutForFastRetransmit()
{
    MarkRecoverPoint(CwndAction::DUPACK);
    Slowdown(0);
    ResetRtxTimer(false);
}

void
Ns2TcpSocket::FastRetransmit()
{
    RetransmitHead();
    m_fastRetransmits = m_fastRetransmits + 1;
    m_tcb->m_congState = TcpSocketState::CA_RECOVERY;
}

void
Ns2TcpSocket::ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    if (!m_recovery->TakeSackBlocks(tcpHeader))
    {
        TcpSocketBase::ReceivedAck(packet, tcpHeader);
        m_holdSend = false;
        return;
    }
    // The SACK blocks go to ns-2's scoreboard only: ns-3's would mark holes lost and resend
    // them on its own (RFC 6675's NextSeg) whenever the window opens.
    TcpHeader withoutSack;
    withoutSack.SetSourcePort(tcpHeader.GetSourcePort());
    withoutSack.SetDestinationPort(tcpHeader.GetDestinationPort());
    withoutSack.SetSequenceNumber(tcpHeader.GetSequenceNumber());
    withoutSack.SetAckNumber(tcpHeader.GetAckNumber());
    withoutSack.SetFlags(tcpHeader.GetFlags());
    withoutSack.SetWindowSize(tcpHeader.GetWindowSize());
    withoutSack.SetUrgentPointer(tcpHeader.GetUrgentPointer());
    for (const Ptr<const TcpOption>& option : tcpHeader.GetOptionList())
    {
        if (option->GetKind() != TcpOption::SACK)
        {
            withoutSack.AppendOption(option);
        }
    }
    TcpSocketBase::ReceivedAck(packet, withoutSack);
    m_holdSend = false;
}

void
Ns2TcpSocket::ProcessAck(const SequenceNumber32& ackNumber,
                         bool /* scoreboardUpdated */,
                         uint32_t /* currentDelivered */,
                         const SequenceNumber32& oldHeadSequence,
                         bool receivedData)
{
    NS_LOG_FUNCTION(this << ackNumber << oldHeadSequence);
    InitWindow();
    m_maxWnd = std::max(m_maxWnd, m_rWnd.Get());
    m_tcb->m_lastAckedSeq = ackNumber;
    if (ackNumber == oldHeadSequence && ackNumber > m_tcb->m_highTxMark)
    {
        m_tcb->m_nextTxSequence = ackNumber; // ACK of our FIN
        return;
    }
    const bool isDupAck =
        ackNumber == oldHeadSequence && ackNumber < m_tcb->m_highTxMark && !receivedData;
    if (ackNumber > oldHeadSequence)
    {
        m_recovery->OnNewAck(*this, ackNumber, oldHeadSequence);
    }
    else if (isDupAck)
    {
        m_recovery->OnDupAck(*this, ackNumber);
    }
    m_holdSend = m_recovery->HoldsSend(*this);
    PublishWindow();
}

void
Ns2TcpSocket::IdleRestart()
{
    ++m_idleRestarts;
    MarkRecoverPoint(CwndAction::TIMEOUT);
    m_cwnd = 1; // slowdown(CLOSE_CWND_ONE): ssthresh kept
    m_ssthresh = std::max<uint32_t>(m_ssthresh, 2);
    m_recovery->IdleRestart();
    ResetRtxTimer(false); // reset_rtx_timer(0, 0): set again, no backoff
    PublishWindow();
    NS_LOG_DEBUG("idle restart: cwnd 1, ssthresh " << m_ssthresh);
}

void
Ns2TcpSocket::ReTxTimeout()
{
    NS_LOG_FUNCTION(this);
    const bool notOpen = m_state == CLOSED || m_state == TIME_WAIT || m_state == SYN_SENT;
    const SequenceNumber32 head = m_txBuffer->HeadSequence();
    if (!notOpen && m_initialized && m_slowStartRestart && MaxSeqEnd() <= head)
    {
        IdleRestart();
        SendPendingData(m_connected); // timeout()'s send_much()
        return;
    }
    if (notOpen || m_txBuffer->Size() == 0)
    {
        TcpSocketBase::ReTxTimeout(); // SYN, FIN or nothing to do
        return;
    }
    InitWindow();
    if (MaxSeqEnd() > head)
    {
        m_timeouts = m_timeouts + 1;
        m_recovery->Timeout(*this);
        MarkRecoverPoint(CwndAction::TIMEOUT);
        Slowdown(1); // CLOSE_SSTHRESH_HALF | CLOSE_CWND_RESTART
        m_tcb->m_congState = TcpSocketState::CA_LOSS;
    }
    ResetRtxTimer(true);
    // Go-back-N (t_seqno_ = highest_ack_ + 1): everything sent is sent again, in order.
    m_txBuffer->SetSentListLost(true);
    m_tcb->m_nextTxSequence = head;
    m_holdSend = false;
    PublishWindow();
    NS_LOG_DEBUG("timeout: backoff " << m_backoff << ", rto " << m_rto.Get().As(Time::MS)
                                     << ", ssthresh " << m_ssthresh);
    SendPendingData(m_connected);
}

} // namespace ns3
