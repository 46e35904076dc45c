/*
 * The output buffer of an ATM port: AAL5 frames held whole, counted in cells, with the UBR+
 * drop policies of the studied switch (EPD, Selective Drop, plain tail drop).
 */
#ifndef SATNET_ATM_CELL_QUEUE_H
#define SATNET_ATM_CELL_QUEUE_H

#include "atm-drop-policy.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <deque>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief Output buffer of an ATM port, K cells shared by all VCs.
 *
 * Frame-level model with cell accounting: a frame arrives whole (PointToPointNetDevice is store
 * and forward) and is judged by the policy on its first cell; an accepted frame whose cells no
 * longer all fit keeps the cells that do (they still use link time) and loses the rest, which
 * the AtmFrameTag records so that reassembly at the receiving host discards the frame. X counts
 * the cells of the frames waiting plus, when LinkRate is set, the cells of the frame on the wire
 * not yet sent: a cell leaves the buffer when it is transmitted, as in a cell switch.
 *
 * Every frame leaves the queue padded to its cells' wire size (53 B per cell, link header
 * included), so a PointToPointNetDevice whose DataRate is the cell rate spends exactly the cell
 * times on it. Frames arriving without an AtmFrameTag (from a host's IP layer) get one here.
 */
class AtmCellQueue : public Queue<Packet>
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    AtmCellQueue();
    ~AtmCellQueue() override;

    bool Enqueue(Ptr<Packet> packet) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

    /// @return X, the cells buffered (waiting, and not yet sent of the frame on the wire)
    uint32_t GetCells() const;
    /// @return X_i, the cells of @p vc buffered
    uint32_t GetVcCells(uint32_t vc) const;
    /// @return Na, the VCs with at least one cell buffered
    uint32_t GetActiveVcs() const;
    /// @return K, the buffer size in cells
    uint32_t GetMaxCells() const;

    /// @return frames refused (whole or in part) for @p reason
    uint64_t GetDroppedFrames(AtmDropReason reason) const;
    /// @return cells refused for @p reason
    uint64_t GetDroppedCells(AtmDropReason reason) const;

    /// Signature of the CellDrop trace: VC, cells refused, reason.
    typedef void (*CellDropTracedCallback)(uint32_t vc, uint32_t cells, AtmDropReason reason);

  protected:
    void NotifyConstructionCompleted() override;

  private:
    /// The policy's verdict for a new frame of @p vc (AtmAdmitsNewFrame on this port's state).
    bool AdmitNewFrame(uint32_t vc, AtmDropReason& reason) const;
    void CountDrop(uint32_t vc, uint32_t cells, AtmDropReason reason);
    /// Updates X, X_i and Na after @p cells of @p vc joined (+) or left (-) the buffer.
    void Account(uint32_t vc, int64_t cells);
    /// Brings @p packet to the wire size of @p cells cells.
    void PadToCells(Ptr<Packet> packet, uint32_t cells) const;
    Ptr<Packet> Pop();
    /// @return cells of the frame on the wire not yet transmitted
    uint32_t CellsOnWire() const;

    /// VC and cells of each buffered frame, in FIFO order beside the packet container.
    struct FrameCells
    {
        uint32_t vc;
        uint32_t cells;
    };

    uint32_t m_maxCells;             //!< K
    AtmDropPolicy m_policy;          //!< drop policy
    double m_epdThreshold;           //!< R / K
    double m_sdZ;                    //!< Z of Selective Drop
    uint32_t m_linkHeaderBytes;      //!< link-layer header already on the packet (PPP: 2 B)
    DataRate m_linkRate;             //!< cell rate of the port's link; 0: frames leave whole
    TracedValue<uint32_t> m_cells;   //!< cells of the waiting frames
    uint32_t m_activeVcs;            //!< VCs with cells among the waiting frames
    FrameCells m_onWire{0, 0};       //!< the frame being transmitted
    Time m_onWireEnd;                //!< when its last cell will have left
    std::vector<uint32_t> m_vcCells; //!< X_i indexed by VC
    std::deque<FrameCells> m_frames;

    AtmDropCounts m_drops; //!< frames and cells refused, per reason
    TracedCallback<uint32_t, uint32_t, AtmDropReason> m_cellDropTrace;
};

} // namespace ns3

#endif /* SATNET_ATM_CELL_QUEUE_H */
