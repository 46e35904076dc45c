/*
 * The UBR+ drop policies of the studied switch, their verdict on a new frame and the counters of
 * what they refuse. Plain C++ (no ns-3): the OMNeT++ model (omnetpp/goyal98/) judges frames with
 * the same code.
 */
#ifndef SATNET_ATM_DROP_POLICY_H
#define SATNET_ATM_DROP_POLICY_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace ns3
{

/// How a port decides which cells to refuse.
enum class AtmDropPolicy
{
    TAIL, //!< cell loss when full, no frame awareness
    EPD,  //!< Early Packet Discard
    SD    //!< Selective Drop (per-VC accounting)
};

/**
 * What happens to the later cells of a frame that has lost a cell for want of room (EPD and SD;
 * tail drop keeps every cell that fits whatever came before). The study says only "partially
 * received packets are accepted if possible".
 */
enum class AtmPartialFrames
{
    PPD,    //!< partial packet discard: the rest is dropped but the last cell, kept if it fits
    ACCEPT, //!< every later cell, the last included, is kept whenever the buffer has room
};

/// Why cells were refused; one counter per reason.
enum class AtmDropReason
{
    EPD_THRESHOLD, //!< new frame refused: occupancy above R
    SD_SHARE,      //!< new frame refused: occupancy above R and its VC above Z * X / Na
    BUFFER_FULL,   //!< new frame refused: not even its first cell fits
    PARTIAL,       //!< tail of an accepted frame refused (partial packet discard)
    TAIL_DROP,     //!< cells refused by plain tail drop
    COUNT
};

/// @return the name used in results for @p reason ("epd", "sd", "full", "partial", "tail")
inline std::string
ToString(AtmDropReason reason)
{
    switch (reason)
    {
    case AtmDropReason::EPD_THRESHOLD:
        return "epd";
    case AtmDropReason::SD_SHARE:
        return "sd";
    case AtmDropReason::BUFFER_FULL:
        return "full";
    case AtmDropReason::PARTIAL:
        return "partial";
    case AtmDropReason::TAIL_DROP:
        return "tail";
    case AtmDropReason::COUNT:
        break;
    }
    return "unknown";
}

/// Frames and cells a port refused, per reason (both cell-level port models keep one).
class AtmDropCounts
{
  public:
    /**
     * Counts one frame that lost cells.
     * @param reason why
     * @param cells cells of the frame refused
     */
    void Add(AtmDropReason reason, uint32_t cells)
    {
        ++m_frames[static_cast<size_t>(reason)];
        m_cells[static_cast<size_t>(reason)] += cells;
    }

    /// @param reason a reason @return frames that lost cells for it
    uint64_t GetFrames(AtmDropReason reason) const
    {
        return m_frames[static_cast<size_t>(reason)];
    }

    /// @param reason a reason @return cells refused for it
    uint64_t GetCells(AtmDropReason reason) const
    {
        return m_cells[static_cast<size_t>(reason)];
    }

  private:
    std::array<uint64_t, static_cast<size_t>(AtmDropReason::COUNT)> m_frames{}; //!< per reason
    std::array<uint64_t, static_cast<size_t>(AtmDropReason::COUNT)> m_cells{};  //!< per reason
};

/// A port's state when the first cell of a new frame arrives, and the policy that judges it.
struct AtmAdmission
{
    AtmDropPolicy policy; //!< drop policy of the port
    uint32_t maxCells;    //!< K
    double epdThreshold;  //!< R / K
    double sdZ;           //!< Z of Selective Drop
    uint32_t cells;       //!< X, cells buffered
    uint32_t vcCells;     //!< X_i of the frame's VC
    uint32_t activeVcs;   //!< Na, VCs with a cell buffered
};

/**
 * The policy's verdict on a new frame: EPD refuses it when X > R; SD when X > R and
 * X_i > Z * X / Na; tail drop never refuses a frame as a whole.
 *
 * @param state the port's state at the frame's first cell
 * @param reason set to the reason of a refusal
 * @return true when the frame is admitted (its cells are then buffered while there is room)
 */
inline bool
AtmAdmitsNewFrame(const AtmAdmission& state, AtmDropReason& reason)
{
    const double threshold = state.epdThreshold * state.maxCells;
    switch (state.policy)
    {
    case AtmDropPolicy::TAIL:
        return true;
    case AtmDropPolicy::EPD:
        reason = AtmDropReason::EPD_THRESHOLD;
        return state.cells <= threshold;
    case AtmDropPolicy::SD:
        reason = AtmDropReason::SD_SHARE;
        // Na >= 1 whenever X > R > 0, so the share is well defined where it is used.
        return state.cells <= threshold ||
               state.vcCells <= state.sdZ * static_cast<double>(state.cells) / state.activeVcs;
    }
    return true;
}

} // namespace ns3

#endif /* SATNET_ATM_DROP_POLICY_H */
