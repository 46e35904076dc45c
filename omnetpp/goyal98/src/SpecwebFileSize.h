/*
 * File sizes of the modified SPECweb96 workload: satnet's own plain-C++ distribution
 * (sim/model/specweb-size-distribution.h), so that both engines draw the same files; build.sh
 * puts sim/ on the include path. OMNeT++'s part: the parameter's text and the module's RNG.
 */
#ifndef SATSWEEP_GOYAL98_SPECWEBFILESIZE_H
#define SATSWEEP_GOYAL98_SPECWEBFILESIZE_H

#include "model/specweb-size-distribution.h"

#include <omnetpp.h>

#include <cstdint>
#include <vector>

namespace satsweep {
namespace goyal98 {

using ns3::SpecwebSizeDistribution;

/// @return the class probabilities parsed from a list of numbers separated by spaces or commas
std::vector<double> parseClassProbabilities(const char *text);

/// @return a file size in bytes, with two U[0,1) draws of @p rng: the class, then j
uint64_t drawFileSize(const SpecwebSizeDistribution& sizes, omnetpp::cRNG *rng);

} // namespace goyal98
} // namespace satsweep

#endif
