/*
 * A Poisson draw kept within [min, max]: satnet's own plain-C++ distribution
 * (sim/model/truncated-poisson.h), so that both engines draw the WWW load with the same code;
 * build.sh puts sim/ on the include path. A value takes one U[0,1) draw of a module's RNG
 * (TruncatedPoisson::Quantile(rng->doubleRand(), ...)).
 */
#ifndef SATSWEEP_GOYAL98_TRUNCATEDPOISSON_H
#define SATSWEEP_GOYAL98_TRUNCATEDPOISSON_H

#include "model/truncated-poisson.h"

#include <string>

namespace satsweep {
namespace goyal98 {

using ns3::TruncatedPoisson;

/// @return the Bounds named @p name ("redraw" or "clamp"); throws cRuntimeError otherwise
TruncatedPoisson::Bounds parsePoissonBounds(const std::string& name);

} // namespace goyal98
} // namespace satsweep

#endif
