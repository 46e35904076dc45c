/*
 * A TcpSocketBase whose loss recovery is one of the study's four TCP flavors.
 */
#ifndef SATNET_TCP_FLAVOR_SOCKET_H
#define SATNET_TCP_FLAVOR_SOCKET_H

#include "model/tcp-flavor.h"
#include "model/timer-clock.h"

#include "ns3/tcp-socket-base.h"
#include "ns3/traced-value.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief TCP socket implementing the Vanilla, Reno, NewReno and SACK flavors.
 *
 * It is meant to run with TcpNewReno congestion control and TcpClassicRecovery (as
 * TcpFlavorSocketFactory sets it up); the flavor only changes how losses are found and repaired:
 *
 * - VANILLA: duplicate ACKs are ignored altogether (no fast retransmit, no window inflation, no
 *   limited transmit; the socket never leaves CA_OPEN on them), so only the retransmission
 *   timeout finds a loss; ns-3's RTO handling then does slow start from the first unacknowledged
 *   segment (go-back-N).
 * - RENO: ns-3's non-SACK fast retransmit on the 3rd duplicate ACK and fast recovery, except that
 *   the first ACK of new data leaves recovery even when it is partial (cwnd = ssthresh); the
 *   remaining losses of that window then wait for the timeout.
 * - NEWRENO: ns-3's RFC 6582 recovery (Sack off), except that every partial ACK restarts the
 *   retransmission timer (ns-3 restarts it on the first partial ACK only).
 * - RENO and NEWRENO, as ns-2's bug_fix_: after a fast retransmit or a timeout, duplicate ACKs
 *   outside fast recovery are ignored (no fast retransmit, no limited transmit) until the
 *   cumulative ACK passes the highest sequence sent when that recovery or timeout began.
 *   ns-3 alone would fast-retransmit again once the ACK reaches that point, e.g. on the
 *   duplicate ACKs its own go-back-N retransmissions cause after a timeout.
 * - SACK: ns-3's RFC 6675 recovery (Sack on), except that a timeout clears the scoreboard.
 *
 * The flavor decides the Sack attribute (on for SACK only): it is applied after the attributes
 * at construction and again whenever Flavor is set.
 *
 * TimerClock chooses the clock of the data retransmission timer (TimerClock): with SHARED a timer
 * set for now + RTO fires on the first multiple of the timer tick (TimerTick(): ns-3's
 * ClockGranularity here, Ns2TcpSocket's Tick) at or after that instant, so the timers of all
 * connections expire on the same ticks. The RTO is computed as before; the handshake's SYN and
 * FIN timers keep ns-3's own clock.
 * Per-connection counters are kept and exported as trace sources; a listening socket's Fork()
 * makes accepted sockets TcpFlavorSockets of the same flavor with zeroed counters.
 */
class TcpFlavorSocket : public TcpSocketBase
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TcpFlavorSocket();
    /**
     * Copy used by Fork(): same configuration, counters zeroed.
     * @param sock socket to copy
     */
    TcpFlavorSocket(const TcpFlavorSocket& sock);

    /**
     * Selects the flavor (only while the socket is CLOSED); also sets the Sack attribute.
     * Virtual: Ns2TcpSocket chooses its recovery strategy with it.
     * @param flavor the flavor
     */
    virtual void SetFlavor(TcpFlavor flavor);
    /// @return the flavor
    TcpFlavor GetFlavor() const;

    /// @return data segments sent again (by fast retransmit, recovery or after a timeout)
    uint64_t GetRetransmittedSegments() const;
    /// @return retransmission timeouts that fired with data outstanding
    uint64_t GetTimeouts() const;
    /// @return fast retransmits, i.e. entries into fast recovery
    uint64_t GetFastRetransmits() const;
    /// @return the congestion window now, bytes
    uint32_t GetCongestionWindow() const;
    /// @return RTT samples taken so far (ns-3 samples every ACK that covers an untimed segment)
    virtual uint64_t GetRttSamples() const;
    /// @return times the window returned to one after an idle period (ns-3's sender: never)
    virtual uint64_t GetIdleRestarts() const;
    /// @return data segments sent, retransmissions included
    uint64_t GetDataSegmentsSent() const;
    /// @return the maximum segment size, bytes
    uint32_t GetSegmentSize() const;
    /// @return the bytes sent and not acknowledged yet (the part of the send buffer in use)
    uint32_t GetUnacknowledgedBytes() const;
    /// @return the clock the retransmission timer runs on
    TimerClock GetTimerClock() const;
    /// @return the period of the shared timer clock: the timer granularity (ClockGranularity)
    virtual Time TimerTick() const;

    /**
     * Sets the send buffer (SndBufSize) while the connection runs, e.g. as a buffer tuner
     * reassigns it. Shrinking it below the data it holds drops nothing: the application can add
     * more only once the ACKs have taken the occupancy below the new size. When it grows, the
     * application is told of the room at once (it would otherwise wait for the next ACK).
     * @param bytes the new size
     */
    void SetSendBuffer(uint32_t bytes);
    /// @return the send buffer's free room: 0 while it holds more than its size (see Send())
    uint32_t GetTxAvailable() const override;
    /**
     * ns-3's TcpTxBuffer::Available() is size - occupancy in uint32_t: after the buffer shrank
     * below its occupancy it wraps to about 4e9 and TcpSocketBase::Send() would accept anything
     * (sim/README.md, "The sabt program"). Here data beyond the free room is refused (-1,
     * ERROR_MSGSIZE) as when the buffer is full.
     */
    int Send(Ptr<Packet> p, uint32_t flags) override;

  protected:
    void NotifyConstructionCompleted() override;
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

    /**
     * @param rto a retransmission timeout
     * @return the delay from now after which a timer set now with @p rto fires: @p rto on the
     *         connection's own clock, up to the next tick of the shared clock with SHARED
     */
    Time RetxTimerDelay(Time rto) const;
    /**
     * With SHARED, moves the retransmission timer ns-3's TcpSocketBase has just set (to now +
     * m_rto) onto the shared clock's tick; nothing with PER_CONNECTION, or when no timer runs.
     * Call it only right after TcpSocketBase set m_retxEvent to its ReTxTimeout.
     */
    void AlignRetxTimer();

  private:
    /**
     * @param ack a cumulative ACK number
     * @return true when @p ack acknowledges new data but not the recovery point, in recovery
     */
    bool IsPartialAckInRecovery(SequenceNumber32 ack) const;
    /**
     * @param ack the cumulative ACK number of a duplicate ACK
     * @return true when the flavor takes no action at all on that duplicate ACK
     */
    bool IgnoresDupAck(SequenceNumber32 ack) const;
    /**
     * Keeps cwnd at most kMaxCongestionWindow. ns-3's NewReno grows cwnd on every new ACK, also
     * while the receiver's window is the limit, so a long loss-free run would wrap its 32 bits;
     * no peer can advertise more than 65535 x 2^14 bytes, so a larger cwnd never sends more.
     */
    void LimitCongestionWindow();

    /// Largest cwnd in bytes (2^31: one more increase, at most one MSS, stays below 2^32).
    static constexpr uint32_t kMaxCongestionWindow = 1U << 31;

    TcpFlavor m_flavor{TcpFlavor::NEWRENO};          ///< loss-recovery flavor
    /// Reno/NewReno: no fast retransmit until the cumulative ACK passes this sequence
    SequenceNumber32 m_fastRetransmitGuard{0};
    bool m_fastRetransmitGuarded{false};              ///< m_fastRetransmitGuard is in force
    TimerClock m_timerClock{TimerClock::PER_CONNECTION}; ///< clock of the retransmission timer

  protected:
    // Counted by subclasses too (Ns2TcpSocket replaces the loss handling that counts them here).
    TracedValue<uint64_t> m_retransmittedSegments{0}; ///< data segments retransmitted
    TracedValue<uint64_t> m_timeouts{0};              ///< data retransmission timeouts
    TracedValue<uint64_t> m_fastRetransmits{0};       ///< entries into fast recovery
    uint64_t m_dataSegmentsSent{0};                   ///< data segments sent in all
};

} // namespace ns3

#endif // SATNET_TCP_FLAVOR_SOCKET_H
