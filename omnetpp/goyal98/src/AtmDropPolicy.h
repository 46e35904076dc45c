/*
 * UBR+ drop policies of the studied switch and the counters of what they refuse (as satnet's
 * sim/model/atm-cell-queue.h: AtmDropPolicy, AtmDropReason, AtmDropCounts, AtmAdmitsNewFrame).
 */
#ifndef SATSWEEP_GOYAL98_ATMDROPPOLICY_H
#define SATSWEEP_GOYAL98_ATMDROPPOLICY_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace satsweep {
namespace goyal98 {

/// How a port decides which cells to refuse.
enum class AtmDropPolicy {
    TAIL, ///< cell loss when full, no frame awareness
    EPD,  ///< Early Packet Discard
    SD    ///< Selective Drop (per-VC accounting)
};

/// Why cells were refused; one counter per reason.
enum class AtmDropReason {
    EPD_THRESHOLD, ///< new frame refused: occupancy above R
    SD_SHARE,      ///< new frame refused: occupancy above R and its VC above Z * X / Na
    BUFFER_FULL,   ///< new frame refused: not even its first cell fits
    PARTIAL,       ///< tail of an accepted frame refused (partial packet discard)
    TAIL_DROP,     ///< cells refused by plain tail drop
    COUNT
};

/// @return the policy named @p name ("epd", "sd", "tail"); throws cRuntimeError otherwise
AtmDropPolicy parseDropPolicy(const std::string& name);

/// @return the name used in results for @p reason ("epd", "sd", "full", "partial", "tail")
std::string toString(AtmDropReason reason);

/// Frames and cells a port refused, per reason.
class AtmDropCounts
{
  public:
    /// Counts one frame that lost @p cells cells for @p reason.
    void add(AtmDropReason reason, uint32_t cells)
    {
        ++frames_[static_cast<size_t>(reason)];
        cells_[static_cast<size_t>(reason)] += cells;
    }
    uint64_t frames(AtmDropReason reason) const { return frames_[static_cast<size_t>(reason)]; }
    uint64_t cells(AtmDropReason reason) const { return cells_[static_cast<size_t>(reason)]; }

  private:
    std::array<uint64_t, static_cast<size_t>(AtmDropReason::COUNT)> frames_{};
    std::array<uint64_t, static_cast<size_t>(AtmDropReason::COUNT)> cells_{};
};

/// A port's state when the first cell of a new frame arrives, and the policy that judges it.
struct AtmAdmission
{
    AtmDropPolicy policy; ///< drop policy of the port
    uint32_t maxCells;    ///< K
    double epdThreshold;  ///< R / K
    double sdZ;           ///< Z of Selective Drop
    uint32_t cells;       ///< X, cells buffered
    uint32_t vcCells;     ///< X_i of the frame's VC
    uint32_t activeVcs;   ///< Na, VCs with a cell buffered
};

/**
 * The policy's verdict on a new frame: EPD refuses it when X > R; SD when X > R and
 * X_i > Z * X / Na; tail drop never refuses a frame as a whole.
 * @param reason set to the reason of a refusal
 * @return true when the frame is admitted (its cells are then buffered while there is room)
 */
bool atmAdmitsNewFrame(const AtmAdmission& state, AtmDropReason& reason);

} // namespace goyal98
} // namespace satsweep

#endif
