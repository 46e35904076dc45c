#include "Goyal98Tahoe.h"

namespace satsweep {
namespace goyal98 {

Register_Class(Goyal98Tahoe);

} // namespace goyal98
} // namespace satsweep
