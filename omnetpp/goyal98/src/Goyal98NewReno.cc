#include "Goyal98NewReno.h"

namespace satsweep {
namespace goyal98 {

Register_Class(Goyal98NewReno);

} // namespace goyal98
} // namespace satsweep
