/*
 * An AAL5 frame between the two ATM switches: the host's PPP frame (IP datagram) it carries,
 * its VC, and how many of its cells it has and still carries.
 */
#ifndef SATSWEEP_GOYAL98_ATMFRAME_H
#define SATSWEEP_GOYAL98_ATMFRAME_H

#include <omnetpp.h>

#include <cstdint>

namespace satsweep {
namespace goyal98 {

/**
 * @brief The cells of one AAL5 frame: the encapsulated packet is the host's PPP frame.
 *
 * cells() is the frame's size in cells (LLC/SNAP + IP datagram + AAL5 trailer, padded to 48 B
 * per cell); keptCells() those still carried after a switch port dropped some (partial packet
 * discard, tail drop). A frame with keptCells() < cells() fails AAL5 reassembly (its CRC) at
 * the receiving end. Its byte length is what it occupies on the wire: keptCells() x 53 B.
 */
class AtmFrame : public omnetpp::cPacket
{
  public:
    explicit AtmFrame(const char *name = nullptr) : cPacket(name) {}
    AtmFrame(const AtmFrame& other) = default;
    AtmFrame& operator=(const AtmFrame& other) = default;
    AtmFrame *dup() const override { return new AtmFrame(*this); }

    /// @return the VC (pair index + 1)
    uint32_t vc() const { return vc_; }
    void setVc(uint32_t vc) { vc_ = vc; }
    /// @return cells of the whole frame
    uint32_t cells() const { return cells_; }
    void setCells(uint32_t cells) { cells_ = cells; }
    /// @return cells still carried (== cells() unless a port dropped some)
    uint32_t keptCells() const { return kept_; }
    void setKeptCells(uint32_t kept) { kept_ = kept; }
    /// @return true when cells were lost: reassembly at the receiving end discards the frame
    bool damaged() const { return kept_ < cells_; }

  private:
    uint32_t vc_ = 0;
    uint32_t cells_ = 0;
    uint32_t kept_ = 0;
};

} // namespace goyal98
} // namespace satsweep

#endif
