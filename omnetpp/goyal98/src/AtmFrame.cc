#include "AtmFrame.h"

namespace satsweep {
namespace goyal98 {

Register_Class(AtmFrame);

} // namespace goyal98
} // namespace satsweep
