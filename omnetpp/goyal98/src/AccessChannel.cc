#include "AccessChannel.h"

namespace satsweep {
namespace goyal98 {

Define_Channel(AccessChannel);

} // namespace goyal98
} // namespace satsweep
