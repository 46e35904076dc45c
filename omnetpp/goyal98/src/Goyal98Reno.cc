#include "Goyal98Reno.h"

namespace satsweep {
namespace goyal98 {

Register_Class(Goyal98Reno);

} // namespace goyal98
} // namespace satsweep
