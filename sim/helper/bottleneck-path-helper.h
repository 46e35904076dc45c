/*
 * An IP path with one drop-tail bottleneck: senders, two routers, one receiver.
 */
#ifndef SATNET_BOTTLENECK_PATH_HELPER_H
#define SATNET_BOTTLENECK_PATH_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Builds senders -> router -> bottleneck -> router -> receiver, as the single-bottleneck
 * IP studies of ns-2 did (e.g. Barakat & Altman 2000, docs/studies/barakat.md): each sender and
 * the receiver on an access link of their own, one bottleneck link between the routers whose
 * sending router holds at most B packets waiting (ns-2's DropTail: the packet being sent is not
 * counted). No queue disc: ns-3's Ipv4AddressHelper puts FqCoDel (10240 packets) in front of
 * every device, which would hide the B-packet buffer; it is removed.
 *
 * @code
 *   BottleneckPathHelper path;
 *   path.bottleneckRate = DataRate("1.5Mbps");
 *   path.bufferPackets = 20;
 *   path.Install(1);   // then InternetStackHelper is in place, routes are populated
 *   Ipv4Address to = path.GetReceiverAddress();
 * @endcode
 */
class BottleneckPathHelper
{
  public:
    DataRate bottleneckRate{"1.5Mbps"}; ///< bottleneck link rate
    Time bottleneckDelay{MilliSeconds(100)}; ///< bottleneck one-way delay
    uint32_t bufferPackets{20};         ///< B: packets the bottleneck holds waiting
    DataRate accessRate{"100Mbps"};     ///< every access link's rate (fast: bursts reach B)
    Time accessDelay{MilliSeconds(1)};  ///< every access link's one-way delay

    /**
     * Creates the nodes and links, installs the internet stack and addresses, removes the queue
     * discs and populates the routing tables.
     * @param senders number of sender hosts (at least 1)
     */
    void Install(uint32_t senders);

    /// @return the sender hosts
    NodeContainer GetSenders() const;
    /// @return the receiver host
    Ptr<Node> GetReceiver() const;
    /// @return the receiver's address
    Ipv4Address GetReceiverAddress() const;
    /// @return the bottleneck router's device toward the receiver: its queue is the B buffer
    Ptr<NetDevice> GetBottleneckDevice() const;
    /// @return the fixed part of the round trip: twice the three one-way delays
    Time GetBaseRtt() const;

  private:
    NodeContainer m_senders;          ///< sender hosts
    Ptr<Node> m_receiver;             ///< receiver host
    Ipv4Address m_receiverAddress;    ///< its address
    Ptr<NetDevice> m_bottleneckDevice; ///< first router's bottleneck device
};

} // namespace ns3

#endif /* SATNET_BOTTLENECK_PATH_HELPER_H */
