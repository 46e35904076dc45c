/*
 * UBR+ drop policies of the studied switch: satnet's own plain-C++ header
 * (sim/model/atm-drop-policy.h: the policies, the verdict on a new frame, the drop counters), so
 * that both engines judge frames with the same code; build.sh puts sim/ on the include path.
 */
#ifndef SATSWEEP_GOYAL98_ATMDROPPOLICY_H
#define SATSWEEP_GOYAL98_ATMDROPPOLICY_H

#include "model/atm-drop-policy.h"

#include <string>

namespace satsweep {
namespace goyal98 {

using ns3::AtmAdmission;
using ns3::AtmAdmitsNewFrame;
using ns3::AtmDropCounts;
using ns3::AtmDropPolicy;
using ns3::AtmDropReason;
using ns3::ToString;

/// @return the policy named @p name ("epd", "sd", "tail"); throws cRuntimeError otherwise
AtmDropPolicy parseDropPolicy(const std::string& name);

} // namespace goyal98
} // namespace satsweep

#endif
