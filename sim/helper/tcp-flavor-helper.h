/*
 * Puts the study's TCP on host nodes.
 */
#ifndef SATNET_TCP_FLAVOR_HELPER_H
#define SATNET_TCP_FLAVOR_HELPER_H

#include "model/tcp-flavor.h"

#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief TCP settings of one run (the same on every host).
 *
 * The defaults are the WAN configuration; Wan(), Meo() and Geo() give the study's three.
 */
struct TcpParameters
{
    TcpFlavor flavor{TcpFlavor::NEWRENO}; ///< loss-recovery flavor
    uint32_t mss{1024};                   ///< maximum segment size, bytes
    /// Receive buffer = largest advertised window, bytes; the window scale follows from it.
    uint32_t windowBytes{65535};
    uint32_t initialSsthreshBytes{56250}; ///< initial slow-start threshold, bytes
    Time tick{MilliSeconds(100)};         ///< TCP timer granularity
    Time minRto{MilliSeconds(200)};       ///< RTO lower bound: two ticks, ns-2's floor
    /// Send buffer, bytes: room for the files a WWW server queues (payload is virtual).
    uint32_t sndBufBytes{512U << 20};

    /**
     * @param flavor the flavor
     * @return WAN: MSS 1024, window 65535 B (scale 0), ssthresh 56,250 B
     */
    static TcpParameters Wan(TcpFlavor flavor);
    /**
     * @param flavor the flavor
     * @return MEO (and multi-hop LEO): MSS 9180, window 2,097,120 B (scale 5),
     *         ssthresh 1,125,000 B
     */
    static TcpParameters Meo(TcpFlavor flavor);
    /**
     * @param flavor the flavor
     * @return GEO: MSS 9180, window 4,194,240 B (scale 6), ssthresh 3,093,750 B
     */
    static TcpParameters Geo(TcpFlavor flavor);
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
