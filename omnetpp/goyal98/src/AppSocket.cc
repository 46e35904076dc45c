#include "AppSocket.h"

#include "inet/networklayer/common/L3AddressResolver.h"

using namespace omnetpp;
using namespace inet;

namespace satsweep {
namespace goyal98 {

void connectAppSocket(cSimpleModule *app, TcpSocket& socket)
{
    const char *localAddress = app->par("localAddress");
    socket.renewSocket();
    socket.bind(*localAddress ? L3AddressResolver().resolve(localAddress) : L3Address(), app->par("localPort"));
    const char *connectAddress = app->par("connectAddress");
    const int connectPort = app->par("connectPort");
    L3Address destination;
    L3AddressResolver().tryResolve(connectAddress, destination);
    if (destination.isUnspecified())
        throw cRuntimeError(app, "cannot resolve connectAddress \"%s\"", connectAddress);
    EV_INFO << "connecting to " << connectAddress << " (" << destination << ") port " << connectPort << endl;
    socket.connect(destination, connectPort);
}

} // namespace goyal98
} // namespace satsweep
