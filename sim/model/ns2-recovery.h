/*
 * How an ns-2 TCP agent repairs losses, as a strategy of Ns2TcpSocket: one class per flavor.
 */
#ifndef SATNET_NS2_RECOVERY_H
#define SATNET_NS2_RECOVERY_H

#include "model/tcp-flavor.h"

#include "ns3/sequence-number.h"
#include "ns3/tcp-header.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace ns3
{

class Ns2TcpSocket;

/**
 * @brief The loss recovery of one of ns-2.1b3's TCP agents, for Ns2TcpSocket.
 *
 * ns-2 gives each recovery its own agent class (TcpAgent, RenoTcpAgent, NewRenoTcpAgent,
 * Sack1TcpAgent) and ns-3 its own TcpRecoveryOps; here Ns2TcpSocket keeps what all of ns-2's
 * agents share (TcpAgent's timer, window, slowdown(), output(), recover_, dupacks_,
 * last_cwnd_action_) and hands every ACK and timeout to the strategy of its flavor, made by
 * Create() when the flavor is set. A strategy holds its flavor's own state (Reno's dupwnd_,
 * Sack1's scoreboard and pipe_), fresh for every socket. The strategies are Ns2TcpSocket's
 * friends, as ns-2's agents are TcpAgent's subclasses.
 */
class Ns2Recovery
{
  public:
    virtual ~Ns2Recovery() = default;

    /**
     * @param flavor a flavor
     * @return a fresh strategy for that flavor's recovery
     */
    static std::unique_ptr<Ns2Recovery> Create(TcpFlavor flavor);

    /**
     * An ACK that acknowledges new data.
     * @param sender the socket
     * @param ack the ACK number
     * @param oldHead the first unacknowledged byte before it
     */
    virtual void OnNewAck(Ns2TcpSocket& sender, SequenceNumber32 ack, SequenceNumber32 oldHead) = 0;
    /**
     * A duplicate ACK: no new data acknowledged, data outstanding, none carried.
     * @param sender the socket
     * @param ack the ACK number
     */
    virtual void OnDupAck(Ns2TcpSocket& sender, SequenceNumber32 ack) = 0;
    /**
     * Which ACKs call send_much(): Tahoe all, Reno all but the 1st and 2nd duplicate,
     * NewReno (newreno_changes_) and Sack1 outside recovery only those that reset dupacks_.
     * @param sender the socket, after the ACK was processed
     * @return true when the ACK just processed sends nothing more
     */
    virtual bool HoldsSend(const Ns2TcpSocket& sender) const = 0;

    /**
     * Takes the SACK blocks of an arriving ACK, before it is processed.
     * @param ack the ACK's header
     * @return true when the strategy took them: they must not reach ns-3's own scoreboard
     */
    virtual bool TakeSackBlocks(const TcpHeader& ack);
    /// @return the window's inflation in fast recovery, packets (Reno's dupwnd_)
    virtual uint32_t WindowInflation() const;
    /**
     * @param sender the socket
     * @param outstanding the bytes sent and not acknowledged
     * @return how many bytes beyond the cumulative ACK send_much() may have out, when the
     *         recovery decides that (Sack1's pipe_); none: ns-2's window()
     */
    virtual std::optional<uint64_t> RecoveryWindow(const Ns2TcpSocket& sender,
                                                   uint64_t outstanding) const;
    /**
     * A data segment was sent.
     * @param bySendMuch sent by send_much(), not by a direct output() of the recovery
     */
    virtual void SegmentSent(bool bySendMuch);
    /**
     * A retransmission timeout with data outstanding, before the window is cut.
     * @param sender the socket
     */
    virtual void Timeout(Ns2TcpSocket& sender);
    /// The timer expired with nothing outstanding (the idle restart cut cwnd to 1).
    virtual void IdleRestart();

  protected:
    static constexpr uint32_t NUM_DUPACKS = 3; ///< numdupacks_
};

} // namespace ns3

#endif // SATNET_NS2_RECOVERY_H
