/*
 * Puts the study's TCP on host nodes.
 */
#ifndef SATNET_TCP_FLAVOR_HELPER_H
#define SATNET_TCP_FLAVOR_HELPER_H

#include "helper/link-preset.h"
#include "model/tcp-flavor.h"
#include "model/tcp-model.h"
#include "model/timer-clock.h"

#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief TCP settings of one run (the same on every host).
 *
 * The defaults are the WAN link's (LinkPreset "wan"); ForLink() gives any link's.
 */
struct TcpParameters
{
    TcpModel model{TcpModel::NS3};        ///< sender: ns-3's or ns-2.1b3's
    TcpFlavor flavor{TcpFlavor::NEWRENO}; ///< loss-recovery flavor
    uint32_t mss{LinkPreset::Get("wan").mss}; ///< maximum segment size, bytes
    /// Receive buffer = largest advertised window, bytes; the window scale follows from it.
    uint32_t windowBytes{LinkPreset::Get("wan").windowBytes};
    /// Initial slow-start threshold, bytes.
    uint32_t initialSsthreshBytes{LinkPreset::Get("wan").initialSsthreshBytes};
    Time tick{MilliSeconds(100)};   ///< TCP timer granularity (the same on every link)
    Time minRto{MilliSeconds(200)}; ///< RTO lower bound: two ticks, ns-2's floor
    /// ns2 model: cwnd returns to 1 when the timer expires with nothing outstanding (ns-2's
    /// slow_start_restart_ and restart_bugfix_, both true by default)
    bool slowStartRestart{true};
    /// ns2 model: ns-2's bug_fix_, one fast retransmit for the losses of one window
    bool fastRetransmitGuard{true};
    /// ns2 model: the send window counted in bytes (BSD), segments below one MSS sent
    bool byteWindow{false};
    /// Clock of the retransmission timers: each connection's own, or one shared by all
    TimerClock timerClock{TimerClock::PER_CONNECTION};
    /// Send buffer, bytes: room for the files a WWW server queues (payload is virtual).
    uint32_t sndBufBytes{512U << 20};

    /**
     * @param link a link preset (LinkPreset::Get("geo"))
     * @param flavor the flavor
     * @return the link's MSS, window and initial ssthresh, the other settings at their defaults
     *         (WAN: MSS 1024, window 65535 B, scale 0; MEO: 9180, 2,097,120 B, scale 5;
     *         GEO: 9180, 4,194,240 B, scale 6)
     */
    static TcpParameters ForLink(const LinkPreset& link, TcpFlavor flavor);
};

/**
 * @brief Aggregates a TcpFlavorSocketFactory configured from TcpParameters on host nodes.
 *
 * Install after the internet stack; then create sockets with
 * Socket::CreateSocket(node, TcpFlavorSocketFactory::GetTypeId()).
 */
class TcpFlavorHelper
{
  public:
    /// @param parameters TCP settings for every node installed
    explicit TcpFlavorHelper(const TcpParameters& parameters);

    /// @param nodes hosts to equip (each with an internet stack, and no factory yet)
    void Install(const NodeContainer& nodes) const;
    /// @param node host to equip
    void Install(Ptr<Node> node) const;

  private:
    TcpParameters m_parameters; ///< settings installed
};

} // namespace ns3

#endif // SATNET_TCP_FLAVOR_HELPER_H
