#include "AtmDropPolicy.h"

#include <omnetpp.h>

namespace satsweep {
namespace goyal98 {

AtmDropPolicy parseDropPolicy(const std::string& name)
{
    if (name == "epd")
        return AtmDropPolicy::EPD;
    if (name == "sd")
        return AtmDropPolicy::SD;
    if (name == "tail")
        return AtmDropPolicy::TAIL;
    throw omnetpp::cRuntimeError("drop=\"%s\": allowed: epd, sd, tail", name.c_str());
}

std::string toString(AtmDropReason reason)
{
    switch (reason) {
        case AtmDropReason::EPD_THRESHOLD: return "epd";
        case AtmDropReason::SD_SHARE: return "sd";
        case AtmDropReason::BUFFER_FULL: return "full";
        case AtmDropReason::PARTIAL: return "partial";
        case AtmDropReason::TAIL_DROP: return "tail";
        default: return "?";
    }
}

bool atmAdmitsNewFrame(const AtmAdmission& state, AtmDropReason& reason)
{
    const double threshold = state.epdThreshold * state.maxCells;
    switch (state.policy) {
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

} // namespace goyal98
} // namespace satsweep
