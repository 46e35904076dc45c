/*
 * The one place the goyal98 apps open a TCP connection: the WWW client to its server, the bulk
 * server to its client.
 */
#ifndef SATSWEEP_GOYAL98_APPSOCKET_H
#define SATSWEEP_GOYAL98_APPSOCKET_H

#include "inet/transportlayer/contract/tcp/TcpSocket.h"

#include <omnetpp.h>

namespace satsweep {
namespace goyal98 {

/**
 * Opens @p socket of @p app (renewed, bound to the app's localAddress and localPort) and
 * connects it to the app's connectAddress (resolved; an error if it cannot be) and connectPort.
 */
void connectAppSocket(omnetpp::cSimpleModule *app, inet::TcpSocket& socket);

} // namespace goyal98
} // namespace satsweep

#endif
