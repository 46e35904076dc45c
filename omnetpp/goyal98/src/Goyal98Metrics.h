/*
 * The goyal98 study's per-run metrics for OMNeT++: efficiency, fairness and the counters, under
 * satnet's summary names.
 */
#ifndef SATSWEEP_GOYAL98_GOYAL98METRICS_H
#define SATSWEEP_GOYAL98_GOYAL98METRICS_H

#include <omnetpp.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace satsweep {
namespace goyal98 {

/**
 * @brief Computes and records the run's summary at finish(), as satnet does.
 *
 * C = bottleneckRate x mss / wire bytes of a full segment's AAL5 frame; x_i = in-order bytes
 * client i received x 8 / simTime; S_i = bytes server i was asked for x 8 / simTime (bulk:
 * unbounded); E = sum x_i / C; F = Jain's index of x_i / e_i over the max-min fair shares e_i.
 * Drops: both trunk ports. TCP counters, both ends of every connection: retransmissions (data
 * segments sent with a sequence number not above one sent before, from INET's sndNxt signal),
 * timeouts and fast retransmits (the flavors' goyal98Timeout / goyal98FastRetransmit signals).
 */
class Goyal98Metrics : public omnetpp::cSimpleModule, public omnetpp::cListener
{
  public:
    ~Goyal98Metrics() override;

  protected:
    void initialize() override;
    void handleMessage(omnetpp::cMessage *msg) override;
    void finish() override;

    void receiveSignal(omnetpp::cComponent *source, omnetpp::simsignal_t signal, omnetpp::intval_t value, omnetpp::cObject *details) override;
    void receiveSignal(omnetpp::cComponent *source, omnetpp::simsignal_t signal, omnetpp::uintval_t value, omnetpp::cObject *details) override;

  private:
    void count(omnetpp::cComponent *source, omnetpp::simsignal_t signal, uint64_t value);

    omnetpp::cMessage *end_ = nullptr;
    omnetpp::simsignal_t sndNxt_ = -1;
    omnetpp::simsignal_t timeout_ = -1;
    omnetpp::simsignal_t fastRetransmit_ = -1;
    /// Highest sequence number of data sent, per TCP connection module.
    std::unordered_map<omnetpp::cComponent *, uint32_t> highestSent_;
    uint64_t retransmissions_ = 0;
    uint64_t timeouts_ = 0;
    uint64_t fastRetransmits_ = 0;
};

} // namespace goyal98
} // namespace satsweep

#endif
