#include "WwwServerApp.h"

#include "AppSocket.h"
#include "TruncatedPoisson.h"

#include "inet/common/ModuleAccess.h"
#include "inet/common/Simsignals.h"
#include "inet/common/packet/chunk/ByteCountChunk.h"
#include "inet/networklayer/common/L3AddressResolver.h"
#include "inet/transportlayer/contract/tcp/TcpCommand_m.h"

namespace satsweep {
namespace goyal98 {

using namespace omnetpp;
using namespace inet;

Define_Module(WwwServerApp);

simsignal_t WwwServerApp::fileQueuedSignal = registerSignal("fileQueued");

WwwServerApp::~WwwServerApp()
{
    cancelAndDelete(startTimer);
    delete client;
}

void WwwServerApp::initialize(int stage)
{
    ApplicationBase::initialize(stage);
    if (stage == INITSTAGE_LOCAL) {
        const std::string workload = par("workload").stdstringValue();
        if (workload != "www" && workload != "bulk")
            throw cRuntimeError("workload must be \"www\" or \"bulk\", got \"%s\"", workload.c_str());
        bulk = workload == "bulk";
        startTime = par("startTime");
        stopTime = par("stopTime");
        const int bytes = par("requestBytes");
        if (bytes < 1)
            throw cRuntimeError("requestBytes must be at least 1");
        requestBytes = bytes;
        const int64_t kiloByte = par("kiloByte");
        if (kiloByte < 1 || kiloByte > UINT32_MAX)
            throw cRuntimeError("kiloByte out of range");
        fileSizes = {parseClassProbabilities(par("classProbabilities")), static_cast<uint32_t>(kiloByte),
                     par("indexMean").doubleValue(), parsePoissonBounds(par("poissonBounds").stdstringValue())};
        fileSizes.Check();
        const int64_t queue = par("bulkQueueBytes");
        // TCP takes the limit as an int, and the queue holds up to twice it in 32-bit sequence space.
        if (bulk && (queue < 1 || queue > (int64_t{1} << 29)))
            throw cRuntimeError("bulkQueueBytes must be in 1 B .. 512 MiB");
        bulkQueueBytes = queue;
        startTimer = new cMessage("start");

        WATCH(requestsRead);
        WATCH(askedBytes);
        WATCH(queuedBytes);
        WATCH(receivedBytes);
    }
}

void WwwServerApp::handleStartOperation(LifecycleOperation *operation)
{
    listener.setOutputGate(gate("socketOut"));
    listener.setCallback(this);
    if (bulk) {
        // The top-up needs unsent data in TCP's queue when it falls below the mark (see
        // startBulk()): check against this host's TCP window where it is INET's Tcp.
        cModule *node = getContainingNode(this);
        cModule *tcp = node ? node->getSubmodule("tcp") : nullptr;
        if (tcp && tcp->hasPar("advertisedWindow") && tcp->hasPar("mss")) {
            const int64_t window = tcp->par("advertisedWindow").intValue();
            const int64_t mss = tcp->par("mss").intValue();
            if (static_cast<int64_t>(bulkQueueBytes) <= window + mss)
                throw cRuntimeError("bulkQueueBytes (%llu B) must exceed the TCP window plus one MSS (%lld + %lld B)",
                        (unsigned long long)bulkQueueBytes, (long long)window, (long long)mss);
        }
        scheduleAt(std::max(startTime, simTime()), startTimer);
        return;
    }
    // As TcpGenericServerApp: listening from initialisation on (ns-3 starts it at startTime 0).
    const char *localAddress = par("localAddress");
    listener.bind(*localAddress ? L3AddressResolver().resolve(localAddress) : L3Address(), par("localPort"));
    listener.listen();
}

void WwwServerApp::startBulk()
{
    connectAppSocket(this, listener);

    // TCP tells us (TCP_I_SEND_MSG) when its send queue falls to bulkQueueBytes - MSS or below,
    // once it has been above bulkQueueBytes. It only looks when it sends a segment, so it must
    // still have unsent data then: bulkQueueBytes above the largest window plus one MSS.
    auto *request = new Request("queueBytesLimit", TCP_C_QUEUE_BYTES_LIMIT);
    auto *command = new TcpCommand();
    command->setUserId(static_cast<int>(bulkQueueBytes));
    request->setControlInfo(command);
    listener.sendCommand(request);
    // Queued until the handshake completes, as BulkSendApplication's first sends.
    send(2 * bulkQueueBytes, "bulk");
}

void WwwServerApp::topUp()
{
    if (stopped())
        return;
    ++topUps;
    send(bulkQueueBytes, "bulk");
}

TcpSocket *WwwServerApp::connection() const
{
    return bulk ? const_cast<TcpSocket *>(&listener) : client;
}

bool WwwServerApp::canSend() const
{
    const TcpSocket *s = connection();
    if (!s)
        return false;
    const auto state = s->getState();
    return state == TcpSocket::CONNECTING || state == TcpSocket::CONNECTED || state == TcpSocket::PEER_CLOSED;
}

bool WwwServerApp::stopped() const
{
    return stopTime >= SIMTIME_ZERO && simTime() >= stopTime;
}

void WwwServerApp::send(uint64_t bytes, const char *name)
{
    if (!canSend()) {
        EV_WARN << "no open connection: " << bytes << " B not sent\n";
        return;
    }
    // The payload is a byte count: INET's send queue holds it as one chunk whatever its size.
    auto *packet = new Packet(name);
    packet->insertAtBack(makeShared<ByteCountChunk>(B(bytes)));
    connection()->send(packet);
    queuedBytes += bytes;
}

void WwwServerApp::handleMessageWhenUp(cMessage *msg)
{
    if (msg == startTimer) {
        startBulk();
        return;
    }
    if (client && client->belongsToSocket(msg)) {
        client->processMessage(msg);
        return;
    }
    if (listener.belongsToSocket(msg)) {
        if (msg->getKind() == TCP_I_SEND_MSG) {
            // TcpSocket::processMessage() does not know this indication.
            delete msg;
            topUp();
            return;
        }
        listener.processMessage(msg);
        return;
    }
    EV_WARN << "message " << msg->getName() << " (kind " << msg->getKind() << ") for an unknown socket, dropped\n";
    delete msg;
}

void WwwServerApp::socketAvailable(TcpSocket *socket, TcpAvailableInfo *availableInfo)
{
    if (client) {
        // Two handshakes overlapped: the first client keeps the server.
        EV_WARN << "refusing a second connection from " << availableInfo->getRemoteAddr() << endl;
        ++refused;
        TcpSocket second(availableInfo);
        second.setOutputGate(gate("socketOut"));
        socket->accept(availableInfo->getNewSocketId());
        second.abort();
        return;
    }
    client = new TcpSocket(availableInfo);
    client->setOutputGate(gate("socketOut"));
    client->setCallback(this);
    socket->accept(availableInfo->getNewSocketId());
}

void WwwServerApp::socketDataArrived(TcpSocket *, Packet *packet, bool)
{
    const uint64_t length = packet->getByteLength();
    receivedBytes += length;
    emit(packetReceivedSignal, packet);
    delete packet;
    if (bulk || stopped())
        return;
    // Requests may arrive split or coalesced: only the byte count matters.
    uint64_t bytes = partialRequestBytes + length;
    uint64_t fileBytes = 0;
    for (; bytes >= requestBytes; bytes -= requestBytes) {
        const uint64_t file = drawFileSize(fileSizes, getRNG(0));
        ++requestsRead;
        askedBytes += file;
        fileBytes += file;
        EV_INFO << "request " << requestsRead << ": file of " << file << " B\n";
        emit(fileQueuedSignal, static_cast<intval_t>(file));
    }
    partialRequestBytes = bytes;
    // The files of one delivery go as one send: TCP sees the same byte stream.
    if (fileBytes > 0)
        send(fileBytes, "files");
}

void WwwServerApp::socketEstablished(TcpSocket *)
{
    EV_INFO << "connected\n";
}

void WwwServerApp::socketPeerClosed(TcpSocket *socket)
{
    // Keep sending what was asked for (the ns-3 server does not close either); TCP closes our
    // half once the application closes, which it never does before the simulation ends.
    EV_INFO << "remote TCP closed\n";
}

void WwwServerApp::socketClosed(TcpSocket *)
{
    EV_INFO << "connection closed\n";
    checkStopped();
}

void WwwServerApp::socketFailure(TcpSocket *, int code)
{
    EV_WARN << "connection broken (" << code << ")\n";
}

void WwwServerApp::checkStopped()
{
    if (operationalState == State::STOPPING_OPERATION && !listener.isOpen() && (!client || !client->isOpen()))
        startActiveOperationExtraTimeOrFinish(par("stopOperationExtraTime"));
}

void WwwServerApp::handleStopOperation(LifecycleOperation *operation)
{
    cancelEvent(startTimer);
    if (client && client->isOpen())
        client->close();
    if (listener.isOpen())
        listener.close();
    delayActiveOperationFinish(par("stopOperationTimeout"));
}

void WwwServerApp::handleCrashOperation(LifecycleOperation *operation)
{
    cancelEvent(startTimer);
    if (operation->getRootModule() != getContainingNode(this)) {
        if (client)
            client->destroy();
        listener.destroy();
    }
    delete client;
    client = nullptr;
}

void WwwServerApp::refreshDisplay() const
{
    ApplicationBase::refreshDisplay();
    char buf[80];
    if (bulk)
        snprintf(buf, sizeof(buf), "bulk: queued %llu B", (unsigned long long)queuedBytes);
    else
        snprintf(buf, sizeof(buf), "requests %llu\nasked %llu B", (unsigned long long)requestsRead,
                (unsigned long long)askedBytes);
    getDisplayString().setTagArg("t", 0, buf);
}

void WwwServerApp::finish()
{
    recordScalar("requestBytesReceived", receivedBytes, "B");
    recordScalar("bytesQueued", queuedBytes, "B");
    if (bulk)
        recordScalar("topUps", topUps);
    else {
        recordScalar("bytesAsked", askedBytes, "B");
        recordScalar("requests", requestsRead);
        recordScalar("refusedConnections", refused);
    }
}

} // namespace goyal98
} // namespace satsweep
