#include "AtmSwitch.h"

#include "Aal5.h"

#include "inet/common/packet/Packet.h"
#include "inet/linklayer/ppp/PppFrame_m.h"

#include <algorithm>

using namespace omnetpp;

namespace satsweep {
namespace goyal98 {

Define_Module(AtmSwitch);

AtmSwitch::~AtmSwitch() = default;

void AtmSwitch::initialize()
{
    const double bottleneckRate = par("bottleneckRate");
    const double accessRate = par("accessRate");
    const long bufferCells = par("bufferCells");
    if (bottleneckRate < 1 || accessRate < 1)
        throw cRuntimeError("bottleneckRate and accessRate must be at least 1 bit/s");
    if (bufferCells < 1 || bufferCells > 4294967295L)
        throw cRuntimeError("bufferCells=%ld: allowed: 1 to 4294967295", bufferCells);
    // The links run at the whole bit/s below their rate, as satnet's DataRate.
    accessBps_ = static_cast<uint64_t>(accessRate);
    port_ = std::make_unique<AtmCellPort>(this, static_cast<uint32_t>(bufferCells),
                                          parseDropPolicy(par("drop").stdstringValue()),
                                          par("epdThreshold").doubleValue(),
                                          par("sdZ").doubleValue(),
                                          static_cast<uint64_t>(bottleneckRate));
    const int hosts = gateSize("host");
    hostInFree_.assign(hosts, SIMTIME_ZERO);
    hostOutFree_.assign(hosts, SIMTIME_ZERO);
    hostInBase_ = gateBaseId("host$i");
    pppOverheadBytes_ = inet::B(inet::PPP_HEADER_LENGTH + inet::PPP_TRAILER_LENGTH).get();
}

void AtmSwitch::handleMessage(cMessage *msg)
{
    if (msg->isSelfMessage()) {
        port_->handleEvent(check_and_cast<AtmFrame *>(msg));
        return;
    }
    if (msg->getArrivalGate() == gate("trunk$i"))
        fromTrunk(check_and_cast<AtmFrame *>(msg));
    else
        fromHost(check_and_cast<cPacket *>(msg), msg->getArrivalGate()->getIndex());
}

void AtmSwitch::fromHost(cPacket *packet, int port)
{
    // The IP datagram inside the host's PPP frame.
    const uint64_t ipBytes = packet->getByteLength() - pppOverheadBytes_;
    auto *frame = new AtmFrame("aal5");
    frame->setVc(port + 1);
    frame->setCells(aal5::CellsForDatagram(static_cast<uint32_t>(ipBytes)));
    frame->setKeptCells(frame->cells());
    frame->encapsulate(packet);
    frame->setByteLength(int64_t(frame->cells()) * aal5::kCellBytes); // its cells on the wire
    // The host link sends cells at accessRate: the frame is whole here one transmission after
    // it (or the host's previous frame) started arriving.
    const simtime_t whole = std::max(simTime(), hostInFree_[port]) +
                            AtmCellPort::cellTimes(frame->cells(), accessBps_);
    hostInFree_[port] = whole;
    port_->receive(frame, port, accessBps_, whole);
}

void AtmSwitch::fromTrunk(AtmFrame *frame)
{
    const int port = static_cast<int>(frame->vc()) - 1;
    if (port < 0 || port >= static_cast<int>(hostOutFree_.size()))
        throw cRuntimeError("frame of VC %u has no host port", frame->vc());
    const simtime_t done = std::max(simTime(), hostOutFree_[port]) +
                           AtmCellPort::cellTimes(frame->keptCells(), accessBps_);
    hostOutFree_[port] = done;
    if (frame->damaged()) {
        ++lostReassembly_; // the host's AAL5 reassembly would discard it (CRC)
        delete frame;
        return;
    }
    cPacket *packet = frame->decapsulate();
    delete frame;
    sendDelayed(packet, done - simTime(), "host$o", port);
}

void AtmSwitch::schedulePortEvent(AtmFrame *frame, simtime_t at)
{
    scheduleAt(at, frame);
}

void AtmSwitch::releaseFrame(AtmFrame *frame, simtime_t at)
{
    sendDelayed(frame, at - simTime(), "trunk$o");
}

} // namespace goyal98
} // namespace satsweep
