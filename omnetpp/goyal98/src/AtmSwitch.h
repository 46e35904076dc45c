/*
 * A layer-2 ATM switch of the goyal98 dumbbell: forwards by VC between its host ports and the
 * trunk, through a UBR+ cell port on the trunk side.
 */
#ifndef SATSWEEP_GOYAL98_ATMSWITCH_H
#define SATSWEEP_GOYAL98_ATMSWITCH_H

#include "AtmCellPort.h"

#include <omnetpp.h>

#include <memory>
#include <vector>

namespace satsweep {
namespace goyal98 {

/**
 * @brief Switch of the dumbbell: host[i] carries VC i + 1; the trunk port is an AtmCellPort.
 *
 * From a host: the host's PPP frame (sent on an infinite-rate channel) is wrapped in an
 * AtmFrame of CellsForDatagram(IP datagram) cells. The host link's serialization is timed
 * here: the frame is received whole one access transmission (cells x 424 / accessRate) after
 * the previous frame of that host was, or after it arrives, whichever is later (what a host
 * link sending cells at accessRate would do), and then handed to the trunk port, whose input
 * cell rate is accessRate.
 *
 * From the trunk: the frame goes to host[vc - 1] through an unbounded output that sends its
 * kept cells at accessRate (store and forward). A damaged frame (cells lost) still uses that
 * link time, and is then discarded in place of the host's AAL5 reassembly (counted:
 * framesLostReassembly()); a whole one is unwrapped and delivered to the host's PPP.
 */
class AtmSwitch : public omnetpp::cSimpleModule, public AtmCellPortOwner
{
  public:
    ~AtmSwitch() override;

    /// @return the trunk port
    const AtmCellPort& trunkPort() const { return *port_; }
    /// @return frames delivered damaged to this switch's hosts, discarded by reassembly
    uint64_t framesLostReassembly() const { return lostReassembly_; }

    void schedulePortEvent(AtmFrame *frame, omnetpp::simtime_t at) override;
    void releaseFrame(AtmFrame *frame, omnetpp::simtime_t at) override;

  protected:
    void initialize() override;
    void handleMessage(omnetpp::cMessage *msg) override;

  private:
    void fromHost(omnetpp::cPacket *packet, int port);
    void fromTrunk(AtmFrame *frame);

    std::unique_ptr<AtmCellPort> port_;
    uint64_t accessBps_ = 0;
    std::vector<omnetpp::simtime_t> hostInFree_;  ///< per host: when its link is free (in)
    std::vector<omnetpp::simtime_t> hostOutFree_; ///< per host: when its link is free (out)
    int hostInBase_ = -1;
    uint64_t lostReassembly_ = 0;
    uint64_t pppOverheadBytes_ = 0;
};

} // namespace goyal98
} // namespace satsweep

#endif
