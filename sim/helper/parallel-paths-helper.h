/*
 * One sender host and disjoint paths, each with a drop-tail bottleneck, to receiver hosts.
 */
#ifndef SATNET_PARALLEL_PATHS_HELPER_H
#define SATNET_PARALLEL_PATHS_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @brief Builds sender -> R_k -> R_k' -> receivers for k = 1..K, as Fig. 1 of the SABT study
 * (docs/studies/sabt.md: three disjoint 1.5 Mbit/s paths carrying 1, 2 and 4 connections):
 * every path an access link from the sender to its router R_k, a bottleneck R_k -> R_k' whose
 * sending device holds at most BufferPackets waiting (drop-tail, ns-2's DropTail), and one
 * egress link R_k' -> receiver per receiver of the path. No queue discs (ns-3's
 * Ipv4AddressHelper would put FqCoDel in front of every device); global routing.
 */
class ParallelPathsHelper
{
  public:
    /// One path.
    struct Path
    {
        DataRate rate{"1.5Mbps"};      ///< bottleneck rate
        Time delay{MilliSeconds(100)}; ///< bottleneck one-way delay
        uint32_t receivers{1};         ///< receiver hosts behind it
    };

    DataRate accessRate{"155Mbps"};    ///< sender -> R_k rate
    Time accessDelay{MilliSeconds(1)}; ///< sender -> R_k one-way delay
    DataRate egressRate{"10Mbps"};     ///< R_k' -> receiver rate
    Time egressDelay{MilliSeconds(1)}; ///< R_k' -> receiver one-way delay
    uint32_t bufferPackets{50};        ///< packets every bottleneck holds waiting

    /**
     * Creates the nodes and links, installs the internet stack and addresses, removes the queue
     * discs and populates the routing tables.
     * @param paths the paths (1 to 200, with 1 to 250 receivers each)
     */
    void Install(const std::vector<Path>& paths);

    /// @return the sender host
    Ptr<Node> GetSender() const;
    /// @return every receiver host, path by path
    NodeContainer GetReceivers() const;
    /// @return receiver @p i's address
    Ipv4Address GetReceiverAddress(uint32_t i) const;
    /// @return receiver @p i's device on its egress link (where receive errors go)
    Ptr<NetDevice> GetReceiverDevice(uint32_t i) const;
    /// @return the path of receiver @p i
    uint32_t GetPathOf(uint32_t i) const;
    /// @return path @p k's bottleneck device (R_k's): its queue is the drop-tail buffer
    Ptr<NetDevice> GetBottleneckDevice(uint32_t k) const;

  private:
    Ptr<Node> m_sender;                        ///< the sender host
    NodeContainer m_receivers;                 ///< receivers, path by path
    std::vector<Ipv4Address> m_addresses;      ///< receivers' addresses
    std::vector<Ptr<NetDevice>> m_receiverDevices; ///< receivers' devices
    std::vector<uint32_t> m_pathOf;            ///< receiver -> path
    std::vector<Ptr<NetDevice>> m_bottlenecks; ///< path -> R_k's bottleneck device
};

} // namespace ns3

#endif /* SATNET_PARALLEL_PATHS_HELPER_H */
