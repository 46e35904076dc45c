#include "AtmCellPort.h"

#include "Aal5.h"

#include <algorithm>

using namespace omnetpp;

namespace satsweep {
namespace goyal98 {

AtmCellPort::AtmCellPort(AtmCellPortOwner *owner, uint32_t maxCells, AtmDropPolicy policy,
                         double epdThreshold, double sdZ, uint64_t linkBps)
    : owner_(owner), maxCells_(maxCells), policy_(policy), epdThreshold_(epdThreshold), sdZ_(sdZ),
      linkBps_(linkBps)
{
    if (maxCells_ < 1)
        throw cRuntimeError("AtmCellPort: bufferCells must be at least 1");
    if (linkBps_ == 0)
        throw cRuntimeError("AtmCellPort: the link's cell rate must be at least 1 bit/s");
}

AtmCellPort::~AtmCellPort()
{
    // The frames themselves are scheduled events of the owner (or already sent): the
    // simulation deletes them; only the bookkeeping is the port's.
    arrivals_.clear();
    pending_.clear();
}

simtime_t AtmCellPort::cellTimes(uint64_t cells, uint64_t bps)
{
    // 128 bits: a busy period of 1e7 cells at 45 Mbit/s is 4e18 bit-nanoseconds already.
    const __int128 bitNs = static_cast<__int128>(cells) * aal5::kCellBytes * 8 * 1000000000;
    return SimTime(static_cast<int64_t>(bitNs / bps), SIMTIME_NS);
}

simtime_t AtmCellPort::nextCellTime(const Arrival& arrival)
{
    return arrival.start + cellTimes(arrival.next, arrival.inputBps);
}

uint32_t AtmCellPort::cellsBuffered()
{
    advance(simTime());
    return static_cast<uint32_t>(buffer_.size());
}

void AtmCellPort::receive(AtmFrame *frame, int input, uint64_t inputBps, simtime_t at)
{
    if (input >= static_cast<int>(inputs_.size()))
        inputs_.resize(input + 1);
    Input& in = inputs_[input];
    // One input delivers one frame's cells at a time.
    const simtime_t start = std::max(at, in.free);
    in.free = start + cellTimes(frame->cells(), inputBps);
    auto pending = pending_.emplace(pending_.end());
    pending->self = pending;
    pending->frame = frame;
    pending->vc = frame->vc();
    pending->cells = frame->cells();
    pending->start = start;
    pending->inputBps = inputBps;
    frame->setContextPointer(&*pending);
    if (start == simTime())
        begin(frame);
    else {
        frame->setKind(BEGIN);
        owner_->schedulePortEvent(frame, start);
    }
}

void AtmCellPort::handleEvent(AtmFrame *frame)
{
    if (frame->getKind() == BEGIN)
        begin(frame);
    else if (frame->getKind() == COMPLETE)
        complete(static_cast<Arrival *>(frame->getContextPointer())->self);
    else
        throw cRuntimeError("AtmCellPort: unexpected event kind %d", frame->getKind());
}

void AtmCellPort::begin(AtmFrame *frame)
{
    auto *pending = static_cast<Arrival *>(frame->getContextPointer());
    Arrival arrival = *pending;
    pending_.erase(pending->self);
    frame->setContextPointer(nullptr);
    const simtime_t now = simTime();
    advance(now);
    if (policy_ != AtmDropPolicy::TAIL) {
        const uint32_t cells = static_cast<uint32_t>(buffer_.size());
        const bool sd = policy_ == AtmDropPolicy::SD;
        AtmDropReason reason = AtmDropReason::BUFFER_FULL;
        const bool admitted = AtmAdmitsNewFrame(
            {policy_, maxCells_, epdThreshold_, sdZ_, cells,
             sd && arrival.vc < vcCells_.size() ? vcCells_[arrival.vc] : 0, activeVcs_},
            reason);
        if (!admitted || cells >= maxCells_) {
            countDrop(arrival.vc, arrival.cells, admitted ? AtmDropReason::BUFFER_FULL : reason);
            delete frame;
            return;
        }
    }
    auto it = arrivals_.insert(arrivals_.end(), arrival);
    it->self = it;
    arriveCell(*it, now);
    it->next = 1;
    if (it->cells == 1) {
        complete(it);
        return;
    }
    frame->setKind(COMPLETE);
    frame->setContextPointer(&*it);
    owner_->schedulePortEvent(frame, it->start + cellTimes(it->cells - 1, it->inputBps));
}

void AtmCellPort::complete(std::list<Arrival>::iterator it)
{
    advance(simTime());
    Arrival arrival = *it;
    arrivals_.erase(it);
    AtmFrame *frame = arrival.frame;
    frame->setContextPointer(nullptr);
    frame->setKind(0);
    const uint32_t lost = arrival.cells - arrival.kept;
    if (lost > 0) {
        countDrop(arrival.vc, lost,
                  policy_ == AtmDropPolicy::TAIL ? AtmDropReason::TAIL_DROP : AtmDropReason::PARTIAL);
        if (arrival.kept == 0) {
            delete frame; // only tail drop loses every cell of a frame it did not refuse whole
            return;
        }
    }
    frame->setKeptCells(arrival.kept);
    frame->setByteLength(int64_t(arrival.kept) * aal5::kCellBytes);
    owner_->releaseFrame(frame, arrival.lastDeparture);
}

void AtmCellPort::advance(simtime_t t)
{
    while (true) {
        // The next cell to arrive among the frames entering; ties go to the earlier frame.
        Arrival *first = nullptr;
        simtime_t when;
        for (auto& arrival : arrivals_) {
            if (arrival.next < arrival.cells) {
                const simtime_t at = nextCellTime(arrival);
                if (at <= t && (!first || at < when)) {
                    first = &arrival;
                    when = at;
                }
            }
        }
        if (!first)
            break;
        depart(when);
        arriveCell(*first, when);
        ++first->next;
    }
    depart(t);
}

void AtmCellPort::depart(simtime_t t)
{
    while (!buffer_.empty() && buffer_.front().departure <= t) {
        const uint32_t vc = buffer_.front().vc;
        buffer_.pop_front();
        if (--vcCells_[vc] == 0)
            --activeVcs_;
    }
}

void AtmCellPort::arriveCell(Arrival& arrival, simtime_t t)
{
    const bool room = buffer_.size() < maxCells_;
    bool keep = room;
    if (policy_ != AtmDropPolicy::TAIL) {
        arrival.cut = arrival.cut || !room;
        if (arrival.cut)
            keep = room && arrival.next + 1 == arrival.cells; // PPD keeps the EOM cell
    }
    if (keep) {
        arrival.lastDeparture = bufferCell(arrival.vc, t);
        ++arrival.kept;
    }
}

simtime_t AtmCellPort::bufferCell(uint32_t vc, simtime_t t)
{
    if (t >= lastDeparture_) {
        busyStart_ = t; // the link was idle: a new busy period
        busyCells_ = 0;
    }
    ++busyCells_;
    lastDeparture_ = busyStart_ + cellTimes(busyCells_, linkBps_);
    if (vc >= vcCells_.size())
        vcCells_.resize(vc + 1, 0);
    if (vcCells_[vc]++ == 0)
        ++activeVcs_;
    buffer_.push_back({vc, lastDeparture_});
    return lastDeparture_;
}

void AtmCellPort::countDrop(uint32_t vc, uint32_t cells, AtmDropReason reason)
{
    drops_.Add(reason, cells);
    owner_->cellsDropped(vc, cells, reason);
}

} // namespace goyal98
} // namespace satsweep
