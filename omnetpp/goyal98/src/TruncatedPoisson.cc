#include "TruncatedPoisson.h"

#include <omnetpp.h>

namespace satsweep {
namespace goyal98 {

TruncatedPoisson::Bounds parsePoissonBounds(const std::string& name)
{
    if (name == "redraw")
        return TruncatedPoisson::REDRAW;
    if (name == "clamp")
        return TruncatedPoisson::CLAMP;
    throw omnetpp::cRuntimeError("poissonBounds must be \"redraw\" or \"clamp\", got \"%s\"", name.c_str());
}

} // namespace goyal98
} // namespace satsweep
