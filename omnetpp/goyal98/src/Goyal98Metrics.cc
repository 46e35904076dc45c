#include "Goyal98Metrics.h"

#include "Aal5.h"
#include "AtmSwitch.h"
#include "Goyal98TcpAlgorithm.h"

#include "model/fairness-metrics.h"

#include "WwwClientApp.h"
#include "WwwServerApp.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace omnetpp;

namespace satsweep {
namespace goyal98 {

Define_Module(Goyal98Metrics);

namespace {

/// Reads a client app's in-order bytes.
uint64_t clientBytes(cModule *app)
{
    return check_and_cast<WwwClientApp *>(app)->inOrderBytes();
}

/// @return the bytes a server app was asked for, or infinity for a bulk server
double serverDemandBytes(cModule *app)
{
    auto *server = check_and_cast<WwwServerApp *>(app);
    return server->isBulk() ? std::numeric_limits<double>::infinity()
                            : static_cast<double>(server->bytesAsked());
}

} // namespace

Goyal98Metrics::~Goyal98Metrics()
{
    cancelAndDelete(end_);
}

void Goyal98Metrics::initialize()
{
    cModule *net = getParentModule();
    // Checks satnet's resolver makes (the rest is in the parameters' declarations).
    if (net->par("bufferRtt").doubleValue() >= 0 && net->par("bufferCells").intValue() >= 1)
        throw cRuntimeError("bufferCells: give either bufferRtt or bufferCells, not both");
    if (net->par("rBufferCells").intValue() < 1)
        throw cRuntimeError("no buffer of %g RTT for link %s (allowed: 0.5, 1, 2; or give delay, "
                            "bottleneckRate or bufferCells)",
                            net->par("rBufferRtt").doubleValue(), net->par("link").stringValue());
    const double simTimeLimit = net->par("simTime");
    if (!(simTimeLimit > 0))
        throw cRuntimeError("simTime=%g: allowed: > 0", simTimeLimit);
    if (net->par("clients").intValue() < 1)
        throw cRuntimeError("clients must be at least 1");

    cModule *root = getSimulation()->getSystemModule();
    sndNxt_ = registerSignal("sndNxt");
    timeout_ = Goyal98TcpSignals::timeout;
    fastRetransmit_ = Goyal98TcpSignals::fastRetransmit;
    root->subscribe(sndNxt_, this);
    root->subscribe(timeout_, this);
    root->subscribe(fastRetransmit_, this);

    // simTime ends the run (and is the throughputs' denominator).
    end_ = new cMessage("end of simTime");
    scheduleAt(SimTime(simTimeLimit), end_);
}

void Goyal98Metrics::handleMessage(cMessage *msg)
{
    if (msg == end_)
        endSimulation();
    throw cRuntimeError("unexpected message %s", msg->getName());
}

void Goyal98Metrics::receiveSignal(cComponent *source, simsignal_t signal, intval_t value, cObject *)
{
    count(source, signal, static_cast<uint64_t>(value));
}

void Goyal98Metrics::receiveSignal(cComponent *source, simsignal_t signal, uintval_t value, cObject *)
{
    count(source, signal, value);
}

void Goyal98Metrics::count(cComponent *source, simsignal_t signal, uint64_t value)
{
    if (signal == sndNxt_) {
        const uint32_t seq = static_cast<uint32_t>(value);
        auto [it, inserted] = highestSent_.try_emplace(source, seq);
        if (!inserted) {
            // New data always starts above every segment sent before (32-bit serial numbers).
            if (static_cast<int32_t>(seq - it->second) <= 0)
                ++retransmissions_;
            else
                it->second = seq;
        }
    }
    else if (signal == timeout_)
        ++timeouts_;
    else if (signal == fastRetransmit_)
        ++fastRetransmits_;
}

void Goyal98Metrics::finish()
{
    cModule *net = getParentModule();
    const int clients = net->par("clients").intValue();
    const double simTimeLimit = net->par("simTime").doubleValue();
    const int mss = net->par("rMss").intValue();
    const double bottleneckRate = net->par("rBottleneckRate").doubleValue();
    // Throughputs are over simTime, as satnet's (the run ends there).
    const double duration = simTimeLimit;

    const double capacity = aal5::MaxTcpThroughput(static_cast<double>(static_cast<uint64_t>(bottleneckRate)), mss);
    std::vector<double> throughput;
    std::vector<double> demand;
    for (int i = 0; i < clients; ++i) {
        cModule *clientApp = net->getSubmodule("client", i)->getSubmodule("app", 0);
        cModule *serverApp = net->getSubmodule("server", i)->getSubmodule("app", 0);
        throughput.push_back(8.0 * clientBytes(clientApp) / duration);
        demand.push_back(8.0 * serverDemandBytes(serverApp) / duration);
    }
    const std::vector<double> fairShare = ns3::MaxMinFairShares(capacity, demand);
    const double goodput = std::accumulate(throughput.begin(), throughput.end(), 0.0);
    double offered = std::accumulate(demand.begin(), demand.end(), 0.0);
    if (std::isinf(offered))
        offered = std::numeric_limits<double>::quiet_NaN(); // bulk: unbounded (satnet: null)

    recordScalar("efficiency", ns3::Efficiency(throughput, capacity));
    recordScalar("fairness", ns3::FairnessIndex(throughput, fairShare));
    recordScalar("capacity_bps", capacity, "bps");
    recordScalar("goodput_bps", goodput, "bps");
    recordScalar("offered_bps", offered, "bps");

    auto *s1 = check_and_cast<AtmSwitch *>(net->getSubmodule("switch1"));
    auto *s2 = check_and_cast<AtmSwitch *>(net->getSubmodule("switch2"));
    for (auto reason : {AtmDropReason::EPD_THRESHOLD, AtmDropReason::SD_SHARE,
                        AtmDropReason::BUFFER_FULL, AtmDropReason::PARTIAL,
                        AtmDropReason::TAIL_DROP}) {
        const std::string name = ToString(reason);
        recordScalar(("frames_dropped_" + name).c_str(),
                     double(s1->trunkPort().drops().GetFrames(reason) + s2->trunkPort().drops().GetFrames(reason)));
        recordScalar(("cells_dropped_" + name).c_str(),
                     double(s1->trunkPort().drops().GetCells(reason) + s2->trunkPort().drops().GetCells(reason)));
    }
    recordScalar("frames_lost_reassembly", double(s1->framesLostReassembly() + s2->framesLostReassembly()));
    recordScalar("retransmissions", double(retransmissions_));
    recordScalar("timeouts", double(timeouts_));
    recordScalar("fast_retransmits", double(fastRetransmits_));
    recordScalar("events", double(getSimulation()->getEventNumber()));

    // The resolved parameters, for the adapter to echo.
    recordScalar("param:delay", net->par("rDelay").doubleValue(), "s");
    recordScalar("param:bottleneckRate", bottleneckRate, "bps");
    recordScalar("param:bufferRtt", net->par("rBufferRtt").doubleValue());
    recordScalar("param:bufferCells", double(net->par("rBufferCells").intValue()));
    recordScalar("param:mss", double(mss), "B");
    recordScalar("param:window", double(net->par("rWindow").intValue()), "B");
    recordScalar("param:ssthresh", double(net->par("rSsthresh").intValue()), "B");
    recordScalar("param:clients", double(clients));
    recordScalar("param:simTime", simTimeLimit, "s");
    recordScalar("param:epdThreshold", net->par("epdThreshold").doubleValue());
    recordScalar("param:sdZ", net->par("sdZ").doubleValue());
    recordScalar("param:accessRate", net->par("accessRate").doubleValue(), "bps");
    recordScalar("param:accessDelay", net->par("accessDelay").doubleValue(), "s");
    recordScalar("param:tick", net->par("tick").doubleValue(), "s");
    recordScalar("param:minRto", net->par("minRto").doubleValue(), "s");
}

} // namespace goyal98
} // namespace satsweep
