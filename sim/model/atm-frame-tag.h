/*
 * The ATM identity of an AAL5 frame in flight: its VC, its datagram size, and how many of its
 * cells are still with it.
 */
#ifndef SATNET_ATM_FRAME_TAG_H
#define SATNET_ATM_FRAME_TAG_H

#include "ns3/tag.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Packet tag standing for the VPI/VCI of every cell of an AAL5 frame.
 *
 * The first switch on a path stamps the VC from the frame's input port; later switches forward
 * by it. When a port drops the tail of an accepted frame (partial packet discard), the tag
 * records it: the frame keeps using link time for the cells it still has and is discarded by
 * AAL5 reassembly at the receiving host.
 */
class AtmFrameTag : public Tag
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    AtmFrameTag() = default;
    /**
     * @param vc virtual circuit of the frame
     * @param ipBytes size of the IP datagram the frame carries
     */
    AtmFrameTag(uint32_t vc, uint32_t ipBytes);

    uint32_t GetVc() const;
    /// Stamps the frame with VC @p vc (done by the first switch, from the input port).
    void SetVc(uint32_t vc);
    /// @return size of the IP datagram carried by the frame
    uint32_t GetIpBytes() const;
    /// @return cells of the complete frame
    uint32_t GetFrameCells() const;
    /// @return cells still carried (fewer than GetFrameCells() after a partial discard)
    uint32_t GetCarriedCells() const;
    /// Records that only @p cells of the frame survived a port.
    void SetCarriedCells(uint32_t cells);
    /// @return true when cells of the frame were lost: reassembly will discard it
    bool IsPartial() const;

  private:
    uint32_t m_vc{0};
    uint32_t m_ipBytes{0};
    uint32_t m_carriedCells{0};
};

} // namespace ns3

#endif /* SATNET_ATM_FRAME_TAG_H */
