/*
 * AAL5 framing arithmetic: satnet's own header (sim/model/aal5.h, plain C++), so that both
 * engines turn a datagram into the same cells. build.sh puts sim/ on the include path.
 */
#ifndef SATSWEEP_GOYAL98_AAL5_H
#define SATSWEEP_GOYAL98_AAL5_H

#include "model/aal5.h"

namespace satsweep {
namespace goyal98 {
namespace aal5 = ::ns3::aal5;
} // namespace goyal98
} // namespace satsweep

#endif
