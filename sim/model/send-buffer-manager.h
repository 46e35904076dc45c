/*
 * A host's pool of send-socket buffer, reassigned among its TCP connections on a timer.
 */
#ifndef SATNET_SEND_BUFFER_MANAGER_H
#define SATNET_SEND_BUFFER_MANAGER_H

#include "model/buffer-allocation.h"
#include "model/ns2-tcp-socket.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace ns3
{

/// The round-trip time in SABT's estimate rho x RTT (docs/studies/sabt.md, "Where the paper is
/// silent"): the paper says RTT, not which.
enum class SabtRtt
{
    SMOOTHED, ///< the connection's smoothed RTT (ns-2's t_srtt_ x tick): what TCP keeps
    MINIMUM,  ///< the smallest sample it has taken (whole ticks): the RTT without queueing seen
    BASE,     ///< its path's propagation and transmission time, known to the host
};

/**
 * @brief The send-buffer tuner of Matsuo, Hasegawa and Murata's SABT study
 * (docs/studies/sabt.md): a pool of Pool bytes shared by a sender host's connections, their
 * buffers set anew every Interval by the Algorithm:
 *
 * - eq: Pool / n each.
 * - abt (Semke, Mahdavi and Mathis 1998): demand AbtWindowFactor x cwnd; max-min shares when
 *   the demands exceed the pool (MaxMinShares).
 * - sabt: demand rho x RTT, rho the expected throughput of PadhyeThroughput() from the
 *   connection's loss rate p (loss indications, i.e. fast retransmits and timeouts, / data
 *   segments sent, since its start or over the last LossWindow), the RTT chosen by SabtRtt
 *   (smoothed by default) and RTO without backoff; Pool while it has lost nothing (in the
 *   window); proportional reassignment when the demands exceed the pool (ProportionalShares).
 * - fixed: FixedBuffer each, in start order, while the pool lasts; the others get 0.
 *
 * A connection without an RTT sample (a new one) asks for the equal share (its first estimate
 * comes at a later reassignment). Adding a large-file connection reassigns at once, so the pool
 * is never promised twice. Small files (Sec. 2.2.2): a file below SmallFileLimit leaves the
 * fair assignment: its buffer and initial window are its size, taken from the pool while it
 * runs, so it is sent in one round trip.
 *
 * Buffers are whole segments (rounded down; at least one, but for fixed), set with TcpFlavorSocket::SetSendBuffer(), which
 * guards ns-3's wrap when a buffer shrinks below what it holds.
 */
class SendBufferManager : public Object
{
  public:
    /// What the manager knows of one connection.
    struct Connection
    {
        Ptr<Ns2TcpSocket> socket; //!< its sender (null once removed)
        uint64_t fileBytes = 0;   //!< its file's size, 0: bulk (no end)
        bool smallFile = false;   //!< outside the fair assignment
        bool active = true;       //!< not removed yet
        Time start;               //!< when it was added
        double assigned = 0;      //!< its buffer now, bytes
        std::optional<double> demand; //!< its demand at the last reassignment, bytes
        double lossRate = 0;      //!< p at the last reassignment
        Time baseRtt;             //!< its path's round trip without queueing (SabtRtt BASE)

        /// Its counters at one reassignment, for a loss rate over a window.
        struct Counters
        {
            Time at;         //!< when
            uint64_t sent;   //!< data segments sent by then
            uint64_t losses; //!< loss indications by then
        };

        std::deque<Counters> history; //!< at the reassignments of the last LossWindow
    };

    /// @return the object TypeId
    static TypeId GetTypeId();

    SendBufferManager();

    /**
     * Takes a connection into the pool; call before it sends data (a small file's initial
     * window is set then: Ns2TcpSocket::SetInitialWindow()): before Connect() at a client, or
     * when a server has read the request.
     * @param socket its sender
     * @param fileBytes its file's size, 0 for a bulk transfer
     * @param baseRtt its path's round trip without queueing (needed by SabtRtt BASE only)
     * @return its index, from 0 in the order added
     */
    uint32_t Add(Ptr<Ns2TcpSocket> socket, uint64_t fileBytes, Time baseRtt = Time(0));
    /// Gives connection @p id's buffer back to the pool (its transfer ended) and lets its socket
    /// go; a second call does nothing.
    void Remove(uint32_t id);
    /// Starts the reassignments: one now, then every Interval.
    void Start();

    /// @return every connection added, by index
    const std::vector<Connection>& GetConnections() const;
    /// @return the pool, bytes
    uint64_t GetPool() const;
    /// @return the bytes the active connections have sent and not had acknowledged yet
    uint64_t GetUnacknowledged() const;

  protected:
    void DoDispose() override;

  private:
    /// Sets every active large-file connection's buffer by the algorithm.
    void Reassign();
    /// The timer: Reassign(), then the trace, then again in Interval.
    void Tick();
    /// @return connection @p c's demand, bytes, for @p equalShare the equal share now
    double Demand(const Connection& c, double equalShare) const;
    /// @return the RTT of connection @p c's estimate (SabtRtt); zero when it has none yet
    Time EstimateRtt(const Connection& c) const;
    /// Sets connection @p c's loss rate p from its counters now (since its start, or over the
    /// last LossWindow).
    void UpdateLossRate(Connection& c) const;

    BufferAlgorithm m_algorithm{BufferAlgorithm::SABT}; //!< the algorithm
    uint64_t m_pool{0};           //!< B_tot, bytes
    Time m_interval;              //!< time between reassignments
    double m_abtFactor{2};        //!< abt: demand = this x cwnd
    uint64_t m_fixedBuffer{0};    //!< fixed: each connection's buffer, bytes
    Leftover m_leftover{Leftover::UNASSIGNED}; //!< the pool left when every demand fits
    uint64_t m_smallFileLimit{0}; //!< files below it are small, bytes
    SabtRtt m_sabtRtt{SabtRtt::SMOOTHED}; //!< sabt: the RTT of rho x RTT
    Time m_lossWindow;            //!< sabt: p over this last span; zero: since the start

    std::vector<Connection> m_connections; //!< by index
    std::vector<uint32_t> m_active;        //!< the active ones' indices, in the order added
    EventId m_timer;                       //!< the next reassignment
    TracedCallback<> m_reassigned;         //!< after every periodic reassignment
};

} // namespace ns3

#endif /* SATNET_SEND_BUFFER_MANAGER_H */
