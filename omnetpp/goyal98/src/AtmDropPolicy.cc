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

} // namespace goyal98
} // namespace satsweep
