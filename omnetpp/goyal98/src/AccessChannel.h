/*
 * A host's link to its switch: a transmission channel of zero transmission time.
 */
#ifndef SATSWEEP_GOYAL98_ACCESSCHANNEL_H
#define SATSWEEP_GOYAL98_ACCESSCHANNEL_H

#include <omnetpp.h>

namespace satsweep {
namespace goyal98 {

/**
 * @brief cDelayChannel that counts as a transmission channel (INET's Ppp needs one) whose
 * transmissions take no time; the AtmSwitch at its end times the link's cells.
 */
class AccessChannel : public omnetpp::cDelayChannel
{
  public:
    bool isTransmissionChannel() const override { return true; }
    omnetpp::simtime_t getTransmissionFinishTime() const override { return finish_; }
    Result processMessage(omnetpp::cMessage *msg, const omnetpp::SendOptions& options, omnetpp::simtime_t t) override
    {
        finish_ = t;
        return cDelayChannel::processMessage(msg, options, t);
    }

  private:
    omnetpp::simtime_t finish_;
};

} // namespace goyal98
} // namespace satsweep

#endif
