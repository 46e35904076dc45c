/*
 * Socket factory that makes TcpFlavorSockets configured for the study.
 */
#ifndef SATNET_TCP_FLAVOR_SOCKET_FACTORY_H
#define SATNET_TCP_FLAVOR_SOCKET_FACTORY_H

#include "model/tcp-flavor.h"
#include "model/tcp-model.h"
#include "model/timer-clock.h"

#include "ns3/nstime.h"
#include "ns3/socket-factory.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Makes TcpFlavorSockets; aggregate one on each host node (TcpFlavorHelper does it).
 *
 * Model chooses the sender: ns3 makes TcpFlavorSockets, ns2 makes Ns2TcpSockets (ns-2.1b3's
 * agents; they take the factory's Tick as their timer granularity).
 * Applications create sockets with Socket::CreateSocket(node, TcpFlavorSocketFactory::GetTypeId())
 * (e.g. BulkSendApplication / PacketSink with Protocol set to that TypeId). Each socket gets a
 * TickRttEstimator, TcpNewReno congestion control, TcpClassicRecovery, the factory's flavor and
 * parameters, and the settings the study fixes for every flavor: initial window 1 segment, an
 * ACK for every segment (DelAckCount 1), Nagle off, window scaling on (the scale follows from
 * RcvBufSize), timestamps off, ClockGranularity = Tick, DataRetries unlimited (as in ns-2).
 * Attributes set on the socket later (or Config defaults) win only where the factory sets none.
 * The node needs an internet stack (TcpL4Protocol) first.
 */
class TcpFlavorSocketFactory : public SocketFactory
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    /// @return a new TcpFlavorSocket, registered with the node's TcpL4Protocol
    Ptr<Socket> CreateSocket() override;

  private:
    TcpModel m_model;             ///< ns-3's or ns-2's sender
    TcpFlavor m_flavor;           ///< loss-recovery flavor
    uint32_t m_segmentSize;       ///< MSS in bytes
    uint32_t m_windowBytes;       ///< receive buffer = largest advertised window
    uint32_t m_sndBufBytes;       ///< send buffer
    uint32_t m_initialSsthresh;   ///< initial slow-start threshold in bytes
    Time m_tick;                  ///< TCP timer granularity
    Time m_minRto;                ///< lower bound of the RTO
    bool m_slowStartRestart{true}; ///< ns2 sockets: cwnd back to 1 after an idle RTO
    bool m_fastRetransmitGuard{true}; ///< ns2 sockets: one fast retransmit per window
    bool m_byteWindow{false};      ///< ns2 sockets: the send window counted in bytes
    TimerClock m_timerClock{TimerClock::PER_CONNECTION}; ///< clock of the retransmission timers
};

} // namespace ns3

#endif // SATNET_TCP_FLAVOR_SOCKET_FACTORY_H
