#include "Goyal98TcpAlgorithm.h"

namespace satsweep {
namespace goyal98 {

omnetpp::simsignal_t Goyal98TcpSignals::timeout = omnetpp::cComponent::registerSignal("goyal98Timeout");
omnetpp::simsignal_t Goyal98TcpSignals::fastRetransmit =
    omnetpp::cComponent::registerSignal("goyal98FastRetransmit");

} // namespace goyal98
} // namespace satsweep
