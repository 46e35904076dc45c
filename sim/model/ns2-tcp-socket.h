/*
 * A TCP sender that behaves as ns-2.1b3's TCP agents (Tahoe, Reno, NewReno, Sack1).
 */
#ifndef SATNET_NS2_TCP_SOCKET_H
#define SATNET_NS2_TCP_SOCKET_H

#include "model/ns2-recovery.h"
#include "model/tcp-flavor-socket.h"

#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/**
 * @brief TcpFlavorSocket whose sender follows ns-2.1b3's one-way TCP agents.
 *
 * Why a subclass and not an attribute of TcpFlavorSocket: the ns-2 sender replaces ns-3's ACK
 * processing, timer and window arithmetic as a whole (ProcessAck, NewAck, ReTxTimeout,
 * EstimateRtt, AvailableWindow), so an attribute would put a branch into every one of those
 * functions of TcpFlavorSocket; as a separate class the ns-3 model keeps its code, and so its
 * results, untouched. ns-3 still provides the connection (handshake, buffers, receiver, SACK
 * generation, sending bytes); TcpFlavorSocket provides the flavor, the counters and Fork().
 *
 * The sender (ns-2 source places in sim/README.md, "The ns2 TCP model"):
 * - Timer (tcp.cc): one segment timed at a time (rtt_active_/rtt_seq_), only new data; a sample
 *   counts the tick boundaries between send and ACK (rtt_update(), with a per-socket random
 *   tick phase, boot_time_); srtt/rttvar in 1/8 and 1/4 ticks; RTO = floor(srtt + 4 rttvar)
 *   ticks x backoff, at least MinRto; a timeout doubles the backoff (at most 64; past 8 srtt is
 *   folded into rttvar) and the backoff returns to 1 only when a timed segment, i.e. one first
 *   sent after the timeout, is acknowledged (Karn). The timer fires RTO after it was set, or
 *   with TimerClock shared on the first multiple of the Tick at or after then (RTT samples
 *   keep the socket's own tick phase either way). A new ACK restarts the timer (newtimer(),
 *   before the RTT update as in 2.1b3), also when it acknowledges everything: newtimer() only
 *   cancels when the ACK passed t_seqno_, the next segment to send, i.e. after go-back-N.
 * - Idle restart (tcp.cc timeout(), slow_start_restart_ and restart_bugfix_, both true in
 *   ns-default.tcl): the timer that expires with nothing outstanding sets cwnd = 1, keeps
 *   ssthresh, and is set again without backoff; so data queued after an idle period longer
 *   than the RTO starts in slow start. Sending with nothing outstanding sets the timer afresh
 *   (output()'s force_set_rtx_timer). Off with SlowStartRestart = false.
 * - Window (tcp.cc opencwnd/slowdown): cwnd in packets, +1 per new ACK below ssthresh, else
 *   +1/cwnd, whatever the bytes acknowledged (SlowStart = stcp; bc and dbc, Barakat & Altman's
 *   faster first slow starts, count the segments an ACK covers instead); window =
 *   min(floor(cwnd), wnd) packets, wnd the largest window the peer advertised; a loss sets ssthresh = max(floor(window / 2), 2).
 *   A timeout sets cwnd = 1 and resends from the first unacknowledged segment (go-back-N).
 *   With ByteWindow the same cwnd is counted in bytes as a BSD sender's snd_cwnd (cwnd x MSS,
 *   not floored; +MSS^2/cwnd bytes per ACK in congestion avoidance) and the sender sends every
 *   byte that window allows, silly-window avoidance off: a backlogged sender whose window grew
 *   by a fraction of a segment sends a segment below one MSS mid-file.
 * - Recovery: what the duplicate ACKs, new ACKs and timeouts do beyond that is the flavor's,
 *   one Ns2Recovery strategy per flavor as ns-2 has one agent class per flavor, chosen when
 *   the flavor is set: Ns2VanillaRecovery (Agent/TCP with fast retransmit off, as the study's
 *   Vanilla: timeouts only), Ns2RenoRecovery (tcp-reno.cc), Ns2NewRenoRecovery
 *   (tcp-newreno.cc), Ns2SackRecovery (tcp-sack1.cc, scoreboard.cc). Each has ns-2's bug_fix_
 *   guard against a second fast retransmit for losses of one window (FastRetransmitGuard; off:
 *   every 3rd duplicate ACK retransmits and halves again, also after a timeout).
 */
class Ns2TcpSocket : public TcpFlavorSocket
{
  public:
    /// How the first slow start opens the window (attribute SlowStart).
    enum class SlowStartPolicy
    {
        STCP, ///< +1 segment per new ACK (ns-2's opencwnd())
        BC,   ///< Byte Counting: +min(k, L) for an ACK of k segments
        DBC,  ///< Decreasing Byte Counting: +min(k, L) / d(W)
    };

    /// @return the object TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    Ns2TcpSocket();
    /**
     * Copy used by Fork(): same configuration, fresh sender state.
     * @param sock socket to copy
     */
    Ns2TcpSocket(const Ns2TcpSocket& sock);

    /// @return the congestion window, packets (ns-2's cwnd_)
    double GetCwndPackets() const;
    /// @return the slow-start threshold, packets (ns-2's ssthresh_)
    uint32_t GetSsthreshPackets() const;
    /// @return the timer backoff multiplier (ns-2's t_backoff_)
    uint32_t GetBackoff() const;
    /// @return the retransmission timeout a timer started now would get (rtt_timeout())
    Time GetCurrentRto() const;
    /// @return that timeout without the backoff: the estimate with its floors
    Time GetRtoWithoutBackoff() const;
    /// @return the smoothed RTT, t_srtt_ (1/8 ticks) x the tick; zero before the first sample
    Time GetSmoothedRtt() const;
    uint64_t GetRttSamples() const override;
    /// @return the last RTT sample, ticks (ns-2's t_rtt_); 0 before the first
    int64_t GetLastRttTicks() const;
    /// @return the smallest RTT sample so far, whole ticks x the tick; zero before the first
    Time GetMinRtt() const;
    uint64_t GetIdleRestarts() const override;
    /// @return the period of the shared timer clock: the Tick (ns-2's tcp_tick_)
    Time TimerTick() const override;
    /**
     * Sets the window the first data segment goes out with (SABT's small-file rule): before the
     * connection opens, the InitialCwnd; once it is open, as long as it has sent no data (a
     * server knows a response's size only when it has read the request, after the handshake),
     * the window itself. Aborts once data has been sent.
     * @param packets the window, segments
     */
    void SetInitialWindow(uint32_t packets);
    /**
     * Puts the sender back to a new connection's state (satnet's --connections=pageReset, a
     * cheap stand-in for a connection per page): cwnd to the InitialCwnd, ssthresh to its
     * initial value, the RTT estimate and the backoff to none (the RTO to InitialRto), the
     * recovery's state cleared and no timer running. Only on an established connection that
     * has sent data and has nothing unacknowledged or queued; counters and the tick phase are
     * kept.
     * @return true when it reset, false when the connection was not in that state
     */
    bool ResetSenderState();
    /// @return the times ResetSenderState() reset the sender
    uint64_t GetSenderResets() const;
    /**
     * Selects the flavor and with it the recovery strategy (only while the socket is CLOSED).
     * @param flavor the flavor
     */
    void SetFlavor(TcpFlavor flavor) override;

  protected:
    Ptr<TcpSocketBase> Fork() override;
    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;
    void ProcessAck(const SequenceNumber32& ackNumber,
                    bool scoreboardUpdated,
                    uint32_t currentDelivered,
                    const SequenceNumber32& oldHeadSequence,
                    bool receivedData) override;
    void NewAck(const SequenceNumber32& seq, bool resetRTO) override;
    void ReTxTimeout() override;
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override;
    void EstimateRtt(const TcpHeader& tcpHeader) override;
    uint32_t AvailableWindow() const override;

  private:
    // The recovery strategies work on the sender as ns-2's agents on their base TcpAgent.
    friend class Ns2VanillaRecovery;
    friend class Ns2RenoRecovery;
    friend class Ns2NewRenoRecovery;
    friend class Ns2SackRecovery;

    /// ns-2's last_cwnd_action_ (the values that matter here).
    enum class CwndAction
    {
        NONE,    ///< no reduction yet
        DUPACK,  ///< fast retransmit (in recovery)
        TIMEOUT, ///< retransmission timeout
        EXITED,  ///< left fast recovery
    };

    /// Sets the initial window and threshold from the attributes, once.
    void InitWindow();
    /// @return ns-2's window(): min(floor(cwnd) (+ the recovery's inflation), wnd) packets
    uint32_t WindowPackets() const;
    /// @return what send_much() may have outstanding, bytes: WindowPackets() x MSS, or with
    /// ByteWindow min((cwnd + inflation) x MSS, the largest window advertised)
    uint64_t WindowBytes() const;
    /// @return the bytes the window lets the sender send now (0 while an ACK holds sending)
    uint64_t UsableWindow() const;
    /// @return the receiver's window in packets (ns-2's wnd_)
    uint32_t WndPackets() const;
    /// @return highest sequence sent so far, i.e. maxseq_ + 1 in bytes
    SequenceNumber32 MaxSeqEnd() const;
    /// @param ack a cumulative ACK: @return true when it acknowledged everything sent before
    /// the last recovery began (NewReno's full ACK: highest_ack_ >= recover_)
    bool Recovered(SequenceNumber32 ack) const;
    /// @param ack a cumulative ACK: @return true when it passed the last recovery point by a
    /// segment or more (dupack_action()'s highest_ack_ > recover_)
    bool PassedRecoverPoint(SequenceNumber32 ack) const;

    /**
     * New ACK outside recovery (recv_newack_helper): newack() then opencwnd().
     * @param ack the ACK number
     * @param oldHead the first unacknowledged byte before it
     */
    void RecvNewAck(SequenceNumber32 ack, SequenceNumber32 oldHead);
    /// ns-2's newack(): timer, dupacks, RTT sample, backoff.
    void Ns2NewAck(SequenceNumber32 ack);
    /**
     * ns-2's opencwnd(), with the slow-start policy.
     * @param segmentsAcked segments the new ACK covers
     */
    void OpenCwnd(uint32_t segmentsAcked);
    /**
     * @param segmentsAcked segments the new ACK covers
     * @return what slow start adds to cwnd for it, packets
     */
    double SlowStartIncrease(uint32_t segmentsAcked) const;
    /**
     * ns-2's slowdown(CLOSE_SSTHRESH_HALF | ...): ssthresh = max(floor(window / 2), 2).
     * @param cwnd the congestion window afterwards, packets (0: the halved window)
     */
    void Slowdown(double cwnd);
    /// ns-2's rtt_update(): a sample of the timed segment, counted in tick boundaries.
    void RttUpdate();
    /// ns-2's rtt_backoff().
    void RttBackoff();
    /// (Re)starts the retransmission timer with the current RTO (set_rtx_timer()).
    void SetRtxTimer();
    /**
     * ns-2's reset_rtx_timer(mild, backoff) without the go-back-N part.
     * @param backoff double the backoff first
     */
    void ResetRtxTimer(bool backoff);
    /// Publishes cwnd/ssthresh in bytes on m_tcb (for traces and GetCongestionWindow()).
    void PublishWindow();
    /**
     * Sets the recovery point (recover_ = maxseq_) and last_cwnd_action_.
     * @param action what cut the window
     */
    void MarkRecoverPoint(CwndAction action);
    /// dupack_action()'s cut: the recovery point, slowdown() to half, the timer restarted.
    void CutForFastRetransmit();
    /// dupack_action()'s retransmission of the first unacknowledged segment, counted.
    void FastRetransmit();
    /// Retransmits the first unacknowledged segment (output(last_ack_ + 1)).
    void RetransmitHead();
    /// Sends one segment of new data regardless of cwnd (NewReno's output(t_seqno_++)).
    void SendOneNew();
    /// timeout() with nothing outstanding (slow_start_restart_, restart_bugfix_).
    void IdleRestart();

    Ptr<RandomVariableStream> m_tickPhase; ///< boot_time_ as a fraction of a tick
    Time m_tick;                           ///< tcp_tick_
    Time m_initialRto;                     ///< rtxcur_init_
    bool m_slowStartRestart{true};         ///< slow_start_restart_ (with restart_bugfix_)
    bool m_sackHolesNeedUnsentData{true};  ///< Sack1's send_much() gate t_seqno_ < curseq_
    bool m_fastRetransmitGuard{true};      ///< bug_fix_: one fast retransmit per window
    bool m_byteWindow{false};              ///< the send window counted in bytes (BSD)
    SlowStartPolicy m_slowStart{SlowStartPolicy::STCP}; ///< the first slow start's policy
    uint32_t m_byteCountingLimit{2};       ///< L of bc and dbc
    double m_dbcMaxD{2};                   ///< d_max of dbc

    bool m_initialized{false};  ///< window state set from the attributes
    TracedValue<double> m_cwnd{1}; ///< cwnd_, packets
    uint32_t m_ssthresh{2};     ///< ssthresh_, packets
    uint32_t m_initialSsthresh{2}; ///< W_th: ssthresh at the start, packets
    uint32_t m_maxWnd{0};       ///< largest window the peer advertised, bytes
    uint32_t m_dupacks{0};      ///< dupacks_
    CwndAction m_lastAction{CwndAction::NONE};   ///< last_cwnd_action_
    bool m_recoverSet{false};                    ///< m_recoverPoint set
    SequenceNumber32 m_recoverPoint{0};          ///< recover_ + 1 packet, bytes
    bool m_holdSend{false};                      ///< this ACK does not call send_much()

    // Timer (tcp.cc)
    Time m_bootTime;           ///< tick phase of this socket (boot_time_)
    bool m_bootTimeDrawn{false}; ///< m_bootTime drawn
    bool m_rttActive{false};   ///< rtt_active_: a segment is being timed
    SequenceNumber32 m_rttEnd{0}; ///< end of the timed segment (rtt_seq_)
    bool m_rttEndSet{false};   ///< m_rttEnd valid
    Time m_rttSent;            ///< rtt_ts_: when the timed segment was sent
    int64_t m_srtt8{0};        ///< t_srtt_, 1/8 tick
    int64_t m_rttvar4{0};      ///< t_rttvar_, 1/4 tick
    int64_t m_lastRttTicks{0}; ///< t_rtt_
    int64_t m_minRttTicks{0};  ///< the smallest t_rtt_ so far, 0 before the first sample
    Time m_rtxcur;             ///< t_rtxcur_
    TracedValue<uint32_t> m_backoff{1}; ///< t_backoff_
    uint64_t m_rttSamples{0};  ///< samples taken
    uint64_t m_idleRestarts{0}; ///< timer expiries with nothing outstanding that cut cwnd
    uint64_t m_senderResets{0}; ///< ResetSenderState() calls that reset

    std::unique_ptr<Ns2Recovery> m_recovery; ///< the flavor's recovery, fresh per socket
    bool m_directOutput{false};     ///< sending outside send_much() (no pipe_ increment)
};

} // namespace ns3

#endif // SATNET_NS2_TCP_SOCKET_H
