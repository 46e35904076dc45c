/*
 * Output port of a cell switch: the cells of frames arriving on many input ports at once
 * interleave in one buffer, which the port's link serves one cell at a time.
 */
#ifndef SATNET_ATM_CELL_PORT_H
#define SATNET_ATM_CELL_PORT_H

#include "atm-cell-queue.h"

#include "ns3/data-rate.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <list>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @brief UBR+ output port with cell interleaving: K cells shared by all VCs, EPD/SD/tail drop.
 *
 * An input port hands a frame over when it has received it whole (PointToPointNetDevice is store
 * and forward); from then on the frame's cells enter this buffer one cell time of that input's
 * link apart, so the cells of frames arriving at once on different inputs interleave. (A
 * cut-through input would start (n - 1) input cell times earlier; since the input is faster
 * than this port's link, that shift does not change when a lone frame leaves.) The link sends
 * the buffered cells in arrival order, one every LinkRate cell time, whenever the buffer holds
 * one; a cell counts in X, X_i and Na until its transmission ends.
 *
 * Per frame, the policy judges the first cell (AtmAdmitsNewFrame on X, X_i, Na at that instant):
 * a refused frame loses all its cells, and so does an admitted one whose first cell finds the
 * buffer full (reason "full"). An admitted frame's later cells are buffered while there is room;
 * the first that finds the buffer full starts partial packet discard: the frame's remaining
 * cells are dropped except its last (EOM) cell, which is kept when there is room for it, as in
 * Romanow & Floyd's PPD and the ATM Forum's TM 4.0, so that reassembly finds the frame's end
 * (its CRC then fails). With PartialFrames Accept ("partially received packets are accepted if
 * possible") a cut frame's later cells are instead each buffered whenever the buffer has room
 * when they arrive, as with tail drop: the cells that leave while the frame enters make room for
 * as many of its cells. The frame is counted once as "partial", with the cells it lost. With
 * tail drop every cell is kept exactly when there is room; a frame that lost any counts once as
 * "tail". A frame that kept cells leaves when its last kept cell has been transmitted, carrying
 * that many cells (AtmFrameTag), so the receiving host's reassembly discards a damaged frame.
 *
 * Exactness and speed: the port runs its own cell-level event loop without ns-3 events per cell.
 * Every cell's arrival time (frame start + j input cell times) and departure time (max(arrival,
 * previous departure) + one cell time) are computed exactly, in integer nanoseconds from the
 * start of the frame or of the busy period (no rounding drift), and the buffer is advanced cell
 * by cell, in time order, up to each instant where something is decided: a frame's first cell
 * (judged at once) and its last cell (its fate is then known). X, X_i, Na and every cell's
 * acceptance are therefore those of a per-cell event simulation, at the cost of two ns-3 events
 * per frame (its last cell, its departure). Drops of a frame's later cells are reported (the
 * CellDrop trace, the counters) at its last cell's arrival.
 *
 * The frame then goes to the port's NetDevice, whose own DataRate should make its transmission
 * take no time: this port has already spent the cell times on the link.
 */
class AtmCellPort : public Object
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    AtmCellPort();
    ~AtmCellPort() override;

    /// Sets the device that carries the frames leaving this port to the far end of its link.
    void SetDevice(Ptr<NetDevice> device);

    /**
     * A frame received whole on @p input (whose DataRate attribute is its cell rate): its cells
     * enter the buffer from now, or from when the input's previous frame has finished entering.
     */
    void Receive(Ptr<Packet> frame, Ptr<NetDevice> input, uint16_t protocol);

    /// @return X, the cells buffered now
    uint32_t GetCells();
    /// @return X_i, the cells of @p vc buffered now
    uint32_t GetVcCells(uint32_t vc);
    /// @return Na, the VCs with at least one cell buffered now
    uint32_t GetActiveVcs();
    /// @return K, the buffer size in cells
    uint32_t GetMaxCells() const;

    /// @return frames refused (whole or in part) for @p reason
    uint64_t GetDroppedFrames(AtmDropReason reason) const;
    /// @return cells refused for @p reason
    uint64_t GetDroppedCells(AtmDropReason reason) const;

  protected:
    void DoDispose() override;

  private:
    /// A frame whose cells are entering the buffer.
    struct Arrival
    {
        Ptr<Packet> frame;
        uint16_t protocol;
        uint32_t vc;
        uint32_t cells;      //!< cells the frame brings
        Time start;          //!< arrival of its first cell
        uint64_t inputBps;   //!< cell rate of its input
        uint32_t next = 0;   //!< index of its next cell to arrive
        uint32_t kept = 0;   //!< cells buffered so far
        bool cut = false;    //!< partial packet discard has begun
        Time lastDeparture{}; //!< when its last kept cell will have been transmitted
    };

    /// A buffered cell: its VC and the end of its transmission.
    struct Cell
    {
        uint32_t vc;
        Time departure;
    };

    /// The input side of a port the frames come from.
    struct Input
    {
        uint64_t bps = 0; //!< its cell rate
        Time free;        //!< when its last frame's cells have all entered
    };

    /// @return time of @p cells cell times at @p bps, floored to the nanosecond
    static Time CellTimes(uint64_t cells, uint64_t bps);
    /// @return arrival time of @p arrival's next cell
    static Time NextCellTime(const Arrival& arrival);

    /// Judges @p arrival at its first cell, now.
    void Begin(Arrival arrival);
    /// Settles the fate of the arrival whose last cell arrives now.
    void Complete(std::list<Arrival>::iterator it);
    /// Hands a frame whose last cell has just been transmitted to the device.
    void Release(Ptr<Packet> frame, uint16_t protocol);
    /// Runs the buffer's cells (arrivals of the frames entering, departures) up to @p t.
    void Advance(Time t);
    /// Ends the transmissions of the buffered cells done by @p t.
    void Depart(Time t);
    /// Handles the cell of @p arrival arriving at @p t: buffered, or dropped by the policy.
    void ArriveCell(Arrival& arrival, Time t);
    /// Buffers a cell of @p vc arriving at @p t; @return the end of its transmission
    Time BufferCell(uint32_t vc, Time t);
    void CountDrop(uint32_t vc, uint32_t cells, AtmDropReason reason);

    uint32_t m_maxCells;            //!< K
    AtmDropPolicy m_policy;         //!< drop policy
    double m_epdThreshold;          //!< R / K
    double m_sdZ;                   //!< Z of Selective Drop
    DataRate m_linkRate;            //!< cell rate of the port's link
    AtmPartialFrames m_partialFrames; //!< what happens to a cut frame's later cells
    Ptr<NetDevice> m_device;        //!< carries the frames that leave
    std::deque<Cell> m_buffer;      //!< buffered cells, in order of transmission
    std::vector<uint32_t> m_vcCells; //!< X_i indexed by VC
    uint32_t m_activeVcs;           //!< Na
    Time m_busyStart;               //!< start of the link's busy period
    uint64_t m_busyCells;           //!< cells sent or due in it
    Time m_lastDeparture;           //!< end of the last buffered cell's transmission
    std::list<Arrival> m_arrivals;  //!< frames admitted whose cells are still entering
    std::unordered_map<uint32_t, Input> m_inputs; //!< by the input's ifIndex

    AtmDropCounts m_drops; //!< frames and cells refused, per reason
    TracedCallback<uint32_t, uint32_t, AtmDropReason> m_cellDropTrace;
};

} // namespace ns3

#endif /* SATNET_ATM_CELL_PORT_H */
