/*
 * Output port of a cell switch: the cells of frames arriving on many input ports at once
 * interleave in one buffer, which the port's link serves one cell at a time. A port of
 * satnet's sim/model/atm-cell-port.{h,cc} (same algorithm, same integer-nanosecond times).
 */
#ifndef SATSWEEP_GOYAL98_ATMCELLPORT_H
#define SATSWEEP_GOYAL98_ATMCELLPORT_H

#include "AtmDropPolicy.h"
#include "AtmFrame.h"

#include <omnetpp.h>

#include <deque>
#include <list>
#include <vector>

namespace satsweep {
namespace goyal98 {

/// What an AtmCellPort needs from the module that owns it.
class AtmCellPortOwner
{
  public:
    virtual ~AtmCellPortOwner() = default;
    /// Delivers @p frame back to the port (AtmCellPort::handleEvent) at @p at.
    virtual void schedulePortEvent(AtmFrame *frame, omnetpp::simtime_t at) = 0;
    /// Puts @p frame, whose last kept cell ends its transmission at @p at, on the port's link.
    virtual void releaseFrame(AtmFrame *frame, omnetpp::simtime_t at) = 0;
    /// Reports @p cells cells of @p vc refused for @p reason (statistics only).
    virtual void cellsDropped(uint32_t vc, uint32_t cells, AtmDropReason reason) {}
};

/**
 * @brief UBR+ output port with cell interleaving: K cells shared by all VCs, EPD/SD/tail drop.
 *
 * An input port hands a frame over when it has received it whole (store and forward); from
 * then on the frame's cells enter this buffer one cell time of that input's link apart, so
 * the cells of frames arriving at once on different inputs interleave. The link sends the
 * buffered cells in arrival order, one every link cell time, whenever the buffer holds one; a
 * cell counts in X, X_i and Na until its transmission ends.
 *
 * Per frame, the policy judges the first cell (AtmAdmitsNewFrame on X, X_i, Na at that
 * instant): a refused frame loses all its cells, and so does an admitted one whose first cell
 * finds the buffer full (reason "full"). An admitted frame's later cells are buffered while
 * there is room; the first that finds the buffer full starts partial packet discard: the
 * frame's remaining cells are dropped except its last (EOM) cell, which is kept when there is
 * room for it, so that reassembly finds the frame's end (its CRC then fails). The frame is
 * counted once as "partial", with the cells it lost. With tail drop every cell is kept exactly
 * when there is room; a frame that lost any counts once as "tail". A frame that kept cells
 * leaves when its last kept cell has been transmitted, carrying that many cells.
 *
 * Exactness and speed: no event per cell. Every cell's arrival time (frame start + j input
 * cell times) and departure time (max(arrival, previous departure) + one cell time) are
 * computed exactly, in integer nanoseconds from the start of the frame or of the busy period
 * (as the ns-3 port), and the buffer is advanced cell by cell, in time order, up to each
 * instant where something is decided: a frame's first cell (judged at once) and its last cell
 * (its fate is then known). Two events per frame (its first cell if it must wait for its
 * input, its last cell); the frame is then sent with a delay to leave at its last departure.
 */
class AtmCellPort
{
  public:
    AtmCellPort(AtmCellPortOwner *owner, uint32_t maxCells, AtmDropPolicy policy,
                double epdThreshold, double sdZ, uint64_t linkBps);
    ~AtmCellPort();

    /**
     * A frame received whole at @p at (>= now) on input @p input, whose cell rate is
     * @p inputBps: its cells enter the buffer from then, or from when the input's previous
     * frame has finished entering. Takes @p frame.
     */
    void receive(AtmFrame *frame, int input, uint64_t inputBps, omnetpp::simtime_t at);
    /// A frame scheduled back by schedulePortEvent() has arrived.
    void handleEvent(AtmFrame *frame);

    /// @return time of @p cells cell times at @p bps, floored to the nanosecond
    static omnetpp::simtime_t cellTimes(uint64_t cells, uint64_t bps);

    uint32_t cellsBuffered();
    uint32_t maxCells() const { return maxCells_; }
    const AtmDropCounts& drops() const { return drops_; }

    /// Kinds of the port's events (the frame itself is the self-message).
    enum EventKind { BEGIN = 1001, COMPLETE = 1002 };

  private:
    /// A frame whose cells are entering the buffer.
    struct Arrival
    {
        AtmFrame *frame = nullptr;
        uint32_t vc = 0;
        uint32_t cells = 0;                  ///< cells the frame brings
        omnetpp::simtime_t start;            ///< arrival of its first cell
        uint64_t inputBps = 0;               ///< cell rate of its input
        uint32_t next = 0;                   ///< index of its next cell to arrive
        uint32_t kept = 0;                   ///< cells buffered so far
        bool cut = false;                    ///< partial packet discard has begun
        omnetpp::simtime_t lastDeparture;    ///< when its last kept cell will have left
        std::list<Arrival>::iterator self;   ///< its place in arrivals_
    };

    /// A buffered cell: its VC and the end of its transmission.
    struct Cell
    {
        uint32_t vc;
        omnetpp::simtime_t departure;
    };

    /// The input side of a port the frames come from.
    struct Input
    {
        omnetpp::simtime_t free; ///< when its last frame's cells have all entered
    };

    static omnetpp::simtime_t nextCellTime(const Arrival& arrival);
    void begin(AtmFrame *frame);
    void complete(std::list<Arrival>::iterator it);
    void advance(omnetpp::simtime_t t);
    void depart(omnetpp::simtime_t t);
    void arriveCell(Arrival& arrival, omnetpp::simtime_t t);
    omnetpp::simtime_t bufferCell(uint32_t vc, omnetpp::simtime_t t);
    void countDrop(uint32_t vc, uint32_t cells, AtmDropReason reason);

    AtmCellPortOwner *owner_;
    uint32_t maxCells_;
    AtmDropPolicy policy_;
    double epdThreshold_;
    double sdZ_;
    uint64_t linkBps_;
    std::deque<Cell> buffer_;          ///< buffered cells, in order of transmission
    std::vector<uint32_t> vcCells_;    ///< X_i indexed by VC
    uint32_t activeVcs_ = 0;           ///< Na
    omnetpp::simtime_t busyStart_;     ///< start of the link's busy period
    uint64_t busyCells_ = 0;           ///< cells sent or due in it
    omnetpp::simtime_t lastDeparture_; ///< end of the last buffered cell's transmission
    std::list<Arrival> arrivals_;      ///< frames admitted whose cells are still entering
    std::list<Arrival> pending_;       ///< frames waiting for their input to be free
    std::vector<Input> inputs_;        ///< by input index
    AtmDropCounts drops_;
};

} // namespace goyal98
} // namespace satsweep

#endif
