/*
 * A layer-2 ATM switch: forwards AAL5 frames between its ports by VC, with no IP stack.
 */
#ifndef SATNET_ATM_SWITCH_H
#define SATNET_ATM_SWITCH_H

#include "atm-cell-port.h"

#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <unordered_map>

namespace ns3
{

/**
 * @brief ATM switching fabric of a node, forwarding each frame by (input port, VC).
 *
 * Ports are the node's NetDevices; each port's AtmCellQueue is its output buffer, or the
 * AtmCellPort given with SetCellPort (where cells of frames from different inputs interleave).
 * A host port is a UNI carrying one VC: frames arriving there are stamped with that VC (the
 * host's IP layer knows nothing of VCs). Cross-connects are symmetric: a VC joins a host port and
 * a trunk port in both directions. Frames of unknown VCs are dropped and counted. Skipping IP forwarding is
 * also what makes a switch with a hundred ports cheap to simulate.
 */
class AtmSwitch : public Object
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    AtmSwitch();
    ~AtmSwitch() override;

    /// Makes @p node's devices the switch's ports; aggregates the switch to the node.
    void Install(Ptr<Node> node);

    /**
     * Cross-connects @p vc between a host port (whose frames are stamped with @p vc) and a
     * trunk port toward the next switch.
     */
    void AddVc(uint32_t vc, Ptr<NetDevice> hostPort, Ptr<NetDevice> trunkPort);

    /**
     * Frames switched to @p port go through @p cellPort (the cell-interleaving model of the
     * port's buffer), which then sends them on @p port; other ports get frames directly.
     */
    void SetCellPort(Ptr<NetDevice> port, Ptr<AtmCellPort> cellPort);

    /// @return frames dropped because their VC had no cross-connect on their input port
    uint64_t GetUnroutedFrames() const;

  private:
    void Receive(Ptr<NetDevice> port,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType packetType);
    static uint64_t Key(uint32_t ifIndex, uint32_t vc);

    std::unordered_map<uint32_t, uint32_t> m_hostPortVc;           //!< ifIndex -> VC
    std::unordered_map<uint64_t, Ptr<NetDevice>> m_crossConnects; //!< (ifIndex, VC) -> port
    std::unordered_map<uint32_t, Ptr<AtmCellPort>> m_cellPorts;   //!< ifIndex -> cell model
    uint64_t m_unroutedFrames;
    TracedCallback<Ptr<const Packet>> m_unroutedTrace;
};

} // namespace ns3

#endif /* SATNET_ATM_SWITCH_H */
