/*
 * The study's TCP timer and counters on top of an INET TCP flavor (TcpTahoe, TcpReno,
 * TcpNewReno): one template, instantiated by Goyal98Tahoe, Goyal98Reno and Goyal98NewReno.
 */
#ifndef SATSWEEP_GOYAL98_GOYAL98TCPALGORITHM_H
#define SATSWEEP_GOYAL98_GOYAL98TCPALGORITHM_H

#include "inet/transportlayer/tcp/Tcp.h"
#include "inet/transportlayer/tcp/TcpConnection.h"
#include "inet/transportlayer/tcp/TcpSackRexmitQueue.h"
#include "inet/transportlayer/tcp/TcpSendQueue.h"

#include <omnetpp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace satsweep {
namespace goyal98 {

/// Reaches TcpConnection's protected send queue (a pointer to member taken in a subclass).
struct TcpConnectionAccess : public inet::tcp::TcpConnection
{
    static inet::tcp::TcpSendQueue *sendQueueOf(inet::tcp::TcpConnection *conn)
    {
        return conn->*(&TcpConnectionAccess::sendQueue);
    }
};

/// Signals the flavors emit (from their TcpConnection module; they propagate to the network).
struct Goyal98TcpSignals
{
    static omnetpp::simsignal_t timeout;        ///< a retransmission timeout fired (value 1)
    static omnetpp::simsignal_t fastRetransmit; ///< an entry into fast retransmit (value 1)
};

/**
 * @brief An INET flavor with the coarse timer of the study (ns-2's, as satnet's
 * TickRttEstimator) and counters.
 *
 * RTT: each sample (INET times one segment at a time, Karn: none across a timeout) is rounded
 * up to whole ticks, n = max(1, ceil(rtt / tick)); srtt in 1/8 tick and rttvar in 1/4 tick
 * (4.3BSD fixed point): the first sample sets srtt = n, rttvar = n / 2; later ones do
 * delta = n - floor(srtt); srtt += delta / 8; rttvar += (|delta| - floor(rttvar)) / 4, each at
 * least one unit. RTO = max(minRto, (floor(srtt) + 4 rttvar) ticks), replacing INET's
 * Jacobson estimator in seconds with its 1 s floor (MIN_REXMIT_TIMEOUT). A timeout doubles the
 * RTO (INET's backoff, at most 240 s); the next sample sets it afresh. Before the first sample
 * the RTO is INET's 3 s.
 *
 * Timer clock (Goyal98Tcp.timerClock, satnet's --timerClock): "perConnection", INET's own (the
 * timer fires RTO after it was set), or "shared": one clock for all connections, ticking every
 * tick from time 0 (BSD's slow timer): wherever INET sets the retransmission timer
 * (startRexmitTimer(), and the backed-off restart in TcpBaseAlg::processRexmitTimer()), it is
 * moved at once to the first multiple of the tick at or after its expiry.
 *
 * Sending: INET sends a partial segment whenever the window leaves room for less than an MSS
 * and Nagle is off (in congestion avoidance cwnd grows by bytes, so most windows end in one),
 * which neither ns-2 (windows in packets) nor ns-3 do. sendData() adds ns-3's sender-side
 * silly-window avoidance (TcpSocketBase::SendPendingData): when more data waits than the
 * window allows, only whole segments go; a partial segment goes only when it is all the data.
 * Otherwise it is INET's TcpBaseAlg::sendData() (idle restart included).
 *
 * Counters: emits Goyal98TcpSignals::timeout on every retransmission timeout (the timer runs
 * only while data is outstanding) and ::fastRetransmit when a duplicate ACK triggers a
 * retransmission at the dupthresh-th duplicate (entry into fast retransmit / recovery).
 */
template <class Base>
class Goyal98TcpAlgorithm : public Base
{
  protected:
    omnetpp::simtime_t tick_;
    omnetpp::simtime_t minRto_;
    int64_t srtt8_ = 0;   ///< smoothed RTT, 1/8 tick; 0 before the first sample
    int64_t rttvar4_ = 0; ///< RTT variation, 1/4 tick
    bool inDupAck_ = false;
    bool sharedClock_ = false; ///< timerClock "shared"

  public:
    void initialize() override
    {
        Base::initialize();
        omnetpp::cModule *tcp = this->conn->getTcpMain();
        tick_ = tcp->par("tick").doubleValue();
        minRto_ = tcp->par("minRto").doubleValue();
        if (tick_ <= SIMTIME_ZERO || minRto_ <= SIMTIME_ZERO)
            throw omnetpp::cRuntimeError("tick and minRto must be positive");
        const std::string clock = tcp->par("timerClock").stdstringValue();
        if (clock != "perConnection" && clock != "shared")
            throw omnetpp::cRuntimeError("timerClock must be \"perConnection\" or \"shared\", got \"%s\"", clock.c_str());
        sharedClock_ = clock == "shared";
    }

  protected:
    bool sendData(bool sendCommandInvoked) override
    {
        auto *state = this->state;
        inet::tcp::TcpConnection *conn = this->conn;
        // TcpBaseAlg::sendData(): RFC 2581's restart window after an idle RTO.
        if (!conn->isSendQueueEmpty() && (omnetpp::simTime() - state->time_last_data_sent) > state->rexmit_timeout) {
            if (state->increased_IW_enabled)
                state->snd_cwnd = std::min(std::min(4 * state->snd_mss, std::max(2 * state->snd_mss, (uint32_t)4380)), state->snd_cwnd);
            else
                state->snd_cwnd = state->snd_mss;
        }
        // Whole segments only while more data waits than the window allows.
        const uint32_t next = state->afterRto ? state->snd_nxt : state->snd_max;
        const uint32_t buffered = TcpConnectionAccess::sendQueueOf(conn)->getBytesAvailable(next);
        const uint32_t maxWindow = std::min(state->snd_wnd, state->snd_cwnd);
        const int64_t effective = int64_t(maxWindow) - int64_t(next - state->snd_una);
        uint32_t window = state->snd_cwnd;
        if (effective > 0 && buffered > effective && state->snd_mss > 0)
            window = maxWindow - static_cast<uint32_t>(effective % state->snd_mss);
        if (state->sack_enabled && state->afterRto)
            return sendDataAfterRtoWithSack(window);
        return conn->sendData(window);
    }

    /**
     * TcpConnection::sendData() for a SACK connection after a timeout, without INET 4.5's
     * failure there: its sendSegment() moves snd_nxt past SACKed data, and when that reaches
     * the end of the data sent so far with nothing new queued (the end of a WWW file), it asks
     * for a segment of 0 bytes ("Returning an empty chunk is not allowed"). Here the loop stops
     * instead, and the bytes skipped count against the window. Otherwise INET's code.
     */
    bool sendDataAfterRtoWithSack(uint32_t congestionWindow)
    {
        auto *state = this->state;
        inet::tcp::TcpConnection *conn = this->conn;
        inet::tcp::TcpSendQueue *sendQueue = TcpConnectionAccess::sendQueueOf(conn);
        const uint32_t oldHighRxt = conn->rexmitQueue->getHighestRexmittedSeqNum();
        uint32_t buffered = sendQueue->getBytesAvailable(state->snd_nxt);
        if (buffered == 0)
            return false;
        const uint32_t maxWindow = std::min(state->snd_wnd, congestionWindow);
        int64_t effectiveWin = int64_t(maxWindow) - int64_t(state->snd_nxt - state->snd_una);
        if (effectiveWin <= 0)
            return false;
        int64_t bytesToSend = std::min<int64_t>(buffered, effectiveWin);
        const uint32_t mss = state->snd_mss; // no options on data segments (timestamps off)
        const uint32_t oldSndNxt = state->snd_nxt;
        while (bytesToSend > 0) {
            const uint32_t forward = conn->rexmitQueue->checkRexmitQueueForSackedOrRexmittedSegments(state->snd_nxt);
            const uint32_t available = sendQueue->getBytesAvailable(state->snd_nxt + forward);
            bytesToSend -= forward;
            if (available == 0 || bytesToSend <= 0)
                break;
            // A partial segment only as the last data (Nagle is off).
            if (bytesToSend < mss && available > bytesToSend)
                break;
            const uint32_t sent = conn->sendSegment(static_cast<uint32_t>(std::min<int64_t>(bytesToSend, mss)));
            if (sent == 0)
                break;
            bytesToSend -= sent;
        }
        if (oldSndNxt == state->snd_nxt)
            return false;
        this->ackSent();
        if (state->lossRecovery && oldHighRxt != state->highRxt)
            this->restartRexmitTimer();
        else
            this->dataSent(oldSndNxt);
        return true;
    }

    void rttMeasurementComplete(omnetpp::simtime_t tSent, omnetpp::simtime_t tAcked) override
    {
        const omnetpp::simtime_t rtt = tAcked - tSent;
        const int64_t ticks = std::max<int64_t>(1, (rtt.raw() + tick_.raw() - 1) / tick_.raw());
        if (srtt8_ == 0) {
            srtt8_ = ticks << 3;
            rttvar4_ = ticks << 1;
        }
        else {
            int64_t delta = ticks - (srtt8_ >> 3);
            srtt8_ = std::max<int64_t>(1, srtt8_ + delta);
            delta = std::abs(delta) - (rttvar4_ >> 2);
            rttvar4_ = std::max<int64_t>(1, rttvar4_ + delta);
        }
        omnetpp::simtime_t rto;
        rto.setRaw(tick_.raw() * ((srtt8_ >> 3) + rttvar4_));
        if (rto < minRto_)
            rto = minRto_;
        if (rto > 240)
            rto = 240;
        this->state->rexmit_timeout = rto;
        this->state->srtt = tick_ * (srtt8_ / 8.0);
        this->state->rttvar = tick_ * (rttvar4_ / 4.0);
    }

    void processRexmitTimer(inet::tcp::TcpEventCode& event) override
    {
        this->conn->emit(Goyal98TcpSignals::timeout, 1L);
        Base::processRexmitTimer(event);
        alignRexmitTimer(); // TcpBaseAlg set it again, backed off, without startRexmitTimer()
    }

    void startRexmitTimer() override
    {
        Base::startRexmitTimer();
        alignRexmitTimer();
    }

    /// With the shared clock, moves a scheduled retransmission timer to the first tick at or
    /// after its expiry (integer raw simtime: a timer already on a tick stays).
    void alignRexmitTimer()
    {
        omnetpp::cMessage *timer = this->rexmitTimer;
        if (!sharedClock_ || !timer->isScheduled())
            return;
        const int64_t at = timer->getArrivalTime().raw();
        const int64_t step = tick_.raw();
        omnetpp::simtime_t onTick;
        onTick.setRaw((at / step + (at % step != 0 ? 1 : 0)) * step);
        if (onTick.raw() != at)
            this->conn->rescheduleAt(onTick, timer);
    }

    void receivedDuplicateAck() override
    {
        inDupAck_ = true;
        // INET 4.5's other path to the empty chunk: a fast retransmit after a timeout
        // (retransmitOneSegment() from snd_una) goes through the same sendSegment(), which
        // skips SACKed and retransmitted data, and fails when that is all the data there is.
        // The duplicate ACKs say snd_una is missing: resend it as INET does without a timeout,
        // then go on after the timeout as before. Every other case runs INET's code as it is.
        auto *state = this->state;
        const bool skipsToTheEnd = state->sack_enabled && state->afterRto && inet::tcp::seqLess(state->snd_una, state->snd_max)
                && TcpConnectionAccess::sendQueueOf(this->conn)->getBytesAvailable(state->snd_una
                        + this->conn->rexmitQueue->checkRexmitQueueForSackedOrRexmittedSegments(state->snd_una)) == 0;
        if (skipsToTheEnd)
            state->afterRto = false;
        Base::receivedDuplicateAck();
        if (skipsToTheEnd)
            state->afterRto = true;
        inDupAck_ = false;
    }

    void segmentRetransmitted(uint32_t fromseq, uint32_t toseq) override
    {
        Base::segmentRetransmitted(fromseq, toseq);
        if (inDupAck_ && this->state->dupacks == this->state->dupthresh)
            this->conn->emit(Goyal98TcpSignals::fastRetransmit, 1L);
    }
};

} // namespace goyal98
} // namespace satsweep

#endif
