/*
 * Wires the studied network: N servers on switch 1, N clients on switch 2, one VC per pair,
 * the switch-to-switch trunk as the bottleneck.
 */
#ifndef SATNET_ATM_DUMBBELL_HELPER_H
#define SATNET_ATM_DUMBBELL_HELPER_H

#include "model/aal5-reassembly-error-model.h"
#include "model/atm-cell-port.h"
#include "model/atm-cell-queue.h"
#include "model/atm-switch.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/// How the trunk ports buffer cells.
enum class AtmSwitchModel
{
    FRAME, //!< AtmCellQueue: a frame enters the buffer whole, frames never interleave
    CELL   //!< AtmCellPort: cells enter at the input's rate and interleave across inputs
};

/// The numbers that define the ATM network.
struct AtmDumbbellParameters
{
    uint32_t pairs = 100;                          //!< client/server pairs (VCs)
    DataRate accessRate = DataRate("149.76Mbps");  //!< cell rate of each host link (OC-3c)
    Time accessDelay = MicroSeconds(5);            //!< one-way delay of each host link
    DataRate bottleneckRate = DataRate("45Mbps");  //!< cell rate of the T3 trunk
    Time bottleneckDelay = MilliSeconds(5);        //!< one-way delay of the trunk
    uint32_t bufferCells = 1062;                   //!< K of both trunk ports
    AtmDropPolicy dropPolicy = AtmDropPolicy::EPD; //!< policy of both trunk ports
    double epdThreshold = 0.8;                     //!< R / K
    double sdZ = 0.8;                              //!< Z of Selective Drop
    AtmSwitchModel switchModel = AtmSwitchModel::FRAME; //!< both trunk ports' model
    /// a cut frame's later cells at the trunk ports (cell model only: in the frame model a
    /// frame enters whole, so no room frees up while it does)
    AtmPartialFrames partialFrames = AtmPartialFrames::PPD;
};

/**
 * @brief Builds the two-switch ATM network with an IP stack on every host.
 *
 * Server i and client i share an IP subnet carried by VC i + 1 end to end, so hosts need no
 * routing. Every port gets an AtmCellQueue; only the trunk ports are bounded (the host and
 * access ports never congest, being faster than the trunk), and every host interface discards
 * partial frames at AAL5 reassembly. In the cell model the trunk ports' buffers are
 * AtmCellPorts instead, which spend the trunk's cell times themselves: their devices then run
 * at 1e18 bit/s (a frame takes 0 ns: only the trunk's delay remains) behind an unbounded
 * AtmCellQueue that pads each frame to the cells it still carries. The traffic-control layer is
 * removed from hosts so that only the ATM ports decide drops.
 */
class AtmDumbbellHelper
{
  public:
    /// Creates the nodes, links, switches, VCs and IP addresses.
    explicit AtmDumbbellHelper(const AtmDumbbellParameters& parameters);

    /// @return the server nodes (on switch 1)
    NodeContainer GetServers() const;
    /// @return the client nodes (on switch 2)
    NodeContainer GetClients() const;
    /// @return the address of server @p i
    Ipv4Address GetServerAddress(uint32_t i) const;
    /// @return the address of client @p i
    Ipv4Address GetClientAddress(uint32_t i) const;
    /// @return VC of pair @p i
    static uint32_t GetVc(uint32_t i);
    /// @return the trunk port buffer from switch 1 to switch 2 (data direction); frame model
    Ptr<AtmCellQueue> GetBottleneckQueue() const;
    /// @return the trunk port buffer from switch 2 to switch 1 (requests and ACKs); frame model
    Ptr<AtmCellQueue> GetReverseQueue() const;
    /// @return the trunk port from switch 1 to switch 2 in the cell model, else null
    Ptr<AtmCellPort> GetBottleneckPort() const;
    /// @return the trunk port from switch 2 to switch 1 in the cell model, else null
    Ptr<AtmCellPort> GetReversePort() const;
    /// @return frames both trunk ports refused (whole or in part) for @p reason, either model
    uint64_t GetTrunkDroppedFrames(AtmDropReason reason) const;
    /// @return cells both trunk ports refused for @p reason, either model
    uint64_t GetTrunkDroppedCells(AtmDropReason reason) const;
    /// Connects @p sink to the CellDrop trace of the bottleneck port, either model.
    void TraceBottleneckCellDrop(const CallbackBase& sink) const;
    /// @return the hosts' reassembly, counting frames lost end to end
    Ptr<Aal5ReassemblyErrorModel> GetReassembly() const;

  private:
    NodeContainer m_servers;
    NodeContainer m_clients;
    std::vector<Ipv4Address> m_serverAddresses;
    std::vector<Ipv4Address> m_clientAddresses;
    Ptr<AtmCellQueue> m_bottleneckQueue;
    Ptr<AtmCellQueue> m_reverseQueue;
    Ptr<AtmCellPort> m_bottleneckPort;
    Ptr<AtmCellPort> m_reversePort;
    Ptr<Aal5ReassemblyErrorModel> m_reassembly;
};

} // namespace ns3

#endif /* SATNET_ATM_DUMBBELL_HELPER_H */
