#include "WwwClientApp.h"

#include "AppSocket.h"

#include "inet/common/ModuleAccess.h"
#include "inet/common/Simsignals.h"
#include "inet/common/packet/chunk/ByteCountChunk.h"
#include "inet/networklayer/common/L3AddressResolver.h"

namespace satsweep {
namespace goyal98 {

using namespace omnetpp;
using namespace inet;

Define_Module(WwwClientApp);

namespace {
enum TimerKind { START = 1, PAGE, REQUEST };
} // namespace

WwwClientApp::~WwwClientApp()
{
    // cIListener's destructor unsubscribes from responseSource (if it still exists).
    cancelAndDelete(startTimer);
    cancelAndDelete(pageTimer);
    cancelAndDelete(requestTimer);
    accepted.deleteSockets();
}

void WwwClientApp::initialize(int stage)
{
    ApplicationBase::initialize(stage);
    if (stage == INITSTAGE_LOCAL) {
        const std::string workload = par("workload").stdstringValue();
        if (workload != "www" && workload != "bulk")
            throw cRuntimeError("workload must be \"www\" or \"bulk\", got \"%s\"", workload.c_str());
        bulk = workload == "bulk";
        bounds = parsePoissonBounds(par("poissonBounds").stdstringValue());
        startTime = par("startTime");
        stopTime = par("stopTime");
        pagePeriod = par("pagePeriod");
        const std::string pacing = par("pagePacing").stdstringValue();
        if (pacing != "period" && pacing != "afterBatch")
            throw cRuntimeError("pagePacing must be \"period\" or \"afterBatch\", got \"%s\"", pacing.c_str());
        afterBatch = pacing == "afterBatch";
        randomStartPhase = par("randomStartPhase");
        meanRequests = par("meanRequestsPerPage");
        const int minR = par("minRequestsPerPage");
        const int maxR = par("maxRequestsPerPage");
        minGap = par("minGap");
        maxGap = par("maxGap");
        const int bytes = par("requestBytes");
        if (!bulk) {
            // The ns-3 attributes' checkers and WwwClient::StartApplication's checks.
            if (pagePeriod <= SIMTIME_ZERO)
                throw cRuntimeError("pagePeriod must be positive");
            if (!(meanRequests > 0))
                throw cRuntimeError("meanRequestsPerPage must be positive");
            if (minR < 1 || maxR < 1)
                throw cRuntimeError("minRequestsPerPage and maxRequestsPerPage must be at least 1");
            if (minR > maxR)
                throw cRuntimeError("minRequestsPerPage %d > maxRequestsPerPage %d", minR, maxR);
            if (minGap < SIMTIME_ZERO || minGap > maxGap)
                throw cRuntimeError("need 0 <= minGap <= maxGap, got %s and %s", minGap.str().c_str(), maxGap.str().c_str());
            if (!afterBatch && (maxR - 1) * maxGap >= pagePeriod)
                throw cRuntimeError("a page of %d requests %s apart could overrun the next page %s later",
                        maxR, maxGap.str().c_str(), pagePeriod.str().c_str());
            if (bytes < 1)
                throw cRuntimeError("requestBytes must be at least 1");
            if (afterBatch) {
                // The server reads the requests in order and draws one file for each (its
                // fileQueued signal): the k-th file is the answer to the k-th request.
                const char *path = par("responseSource");
                responseSource = *path ? getModuleByPath(path) : nullptr;
                if (!responseSource)
                    throw cRuntimeError("pagePacing \"afterBatch\" needs responseSource, the server app's module path (got \"%s\")", path);
                responseSource->subscribe("fileQueued", this);
            }
        }
        minRequests = minR;
        maxRequests = maxR;
        requestBytes = bytes;

        startTimer = new cMessage("start", START);
        pageTimer = new cMessage("page", PAGE);
        requestTimer = new cMessage("request", REQUEST);

        WATCH(receivedBytes);
        WATCH(requestsSent);
        WATCH(pagesStarted);
        WATCH(backlog);
    }
}

void WwwClientApp::handleStartOperation(LifecycleOperation *operation)
{
    socket.setOutputGate(gate("socketOut"));
    socket.setCallback(this);
    const char *localAddress = par("localAddress");
    const L3Address local = *localAddress ? L3AddressResolver().resolve(localAddress) : L3Address();
    if (bulk) {
        // satnet's PacketSink: listening from the start, whatever startTime says.
        socket.bind(local, par("localPort"));
        socket.listen();
        return;
    }
    scheduleAt(std::max(startTime, simTime()), startTimer);
}

void WwwClientApp::start()
{
    connectAppSocket(this, socket);

    // One draw whatever randomStartPhase says keeps the later draws of the run aligned (ns-3).
    const simtime_t drawn = pagePeriod * getRNG(0)->doubleRand();
    phase = randomStartPhase ? drawn : SIMTIME_ZERO;
    EV_INFO << "first page in " << phase << "s" << endl;
    if (stopTime < SIMTIME_ZERO || simTime() + phase < stopTime)
        scheduleAfter(phase, pageTimer);
}

void WwwClientApp::handleMessageWhenUp(cMessage *msg)
{
    if (msg->isSelfMessage()) {
        switch (msg->getKind()) {
            case START: start(); break;
            case PAGE: startPage(); break;
            case REQUEST: sendRequest(); break;
            default: throw cRuntimeError("unknown timer %s", msg->getName());
        }
        return;
    }
    if (auto *s = check_and_cast_nullable<TcpSocket *>(accepted.findSocketFor(msg)))
        s->processMessage(msg);
    else if (socket.belongsToSocket(msg))
        socket.processMessage(msg);
    else {
        EV_WARN << "message " << msg->getName() << " (kind " << msg->getKind() << ") for an unknown socket, dropped\n";
        delete msg;
    }
}

void WwwClientApp::startPage()
{
    if (requestTimer->isScheduled())
        throw cRuntimeError("the previous page overran this one");
    const uint32_t count =
            TruncatedPoisson::Quantile(getRNG(0)->doubleRand(), meanRequests, minRequests, maxRequests, bounds);
    ++pagesStarted;
    EV_INFO << "page " << pagesStarted << ": " << count << " requests\n";
    if (afterBatch) {
        // The next page is scheduled by checkPageDone() once this one's documents have arrived.
        pageOpen = true;
        pageLastRequest = requestsSent + count;
    }
    else if (stopTime < SIMTIME_ZERO || simTime() + pagePeriod < stopTime)
        scheduleAfter(pagePeriod, pageTimer);
    requestsLeft = count;
    sendRequest();
}

void WwwClientApp::sendRequest()
{
    ++requestsSent;
    backlog += requestBytes;
    flush();
    if (--requestsLeft > 0) {
        const simtime_t gap = uniform(minGap.dbl(), maxGap.dbl());
        if (stopTime < SIMTIME_ZERO || simTime() + gap < stopTime)
            scheduleAfter(gap, requestTimer);
        else
            requestsLeft = 0;
    }
}

bool WwwClientApp::canSend() const
{
    const auto state = socket.getState();
    return state == TcpSocket::CONNECTING || state == TcpSocket::CONNECTED || state == TcpSocket::PEER_CLOSED;
}

void WwwClientApp::flush()
{
    // Requests carry no content: the backlog is a byte count (INET's send queue is unbounded,
    // so it only waits while there is no connection to take it).
    if (backlog == 0 || !canSend())
        return;
    auto *packet = new Packet("request");
    packet->insertAtBack(makeShared<ByteCountChunk>(B(backlog)));
    emit(packetSentSignal, packet);
    socket.send(packet);
    backlog = 0;
}

void WwwClientApp::socketDataArrived(TcpSocket *, Packet *packet, bool)
{
    receivedBytes += packet->getByteLength();
    ++receivedPackets;
    emit(packetReceivedSignal, packet);
    delete packet;
    checkPageDone();
}

void WwwClientApp::receiveSignal(cComponent *, simsignal_t, intval_t value, cObject *)
{
    ++responses;
    responseEnd += value;
    checkPageDone(); // only its length was missing if its bytes were all read already
}

void WwwClientApp::checkPageDone()
{
    // No request follows the open page's last one until the page is done, so once all its
    // requests are answered responseEnd is where its last document ends.
    if (!pageOpen || responses < pageLastRequest || receivedBytes < responseEnd)
        return;
    pageOpen = false;
    ++pagesCompleted;
    EV_INFO << "page " << pagesStarted << " done\n";
    if (operationalState == State::OPERATING && (stopTime < SIMTIME_ZERO || simTime() + pagePeriod < stopTime))
        scheduleAfter(pagePeriod, pageTimer);
}

void WwwClientApp::socketAvailable(TcpSocket *listener, TcpAvailableInfo *availableInfo)
{
    // bulk only: the server's connection (any number is accepted, as PacketSink does).
    auto *s = new TcpSocket(availableInfo);
    s->setOutputGate(gate("socketOut"));
    s->setCallback(this);
    accepted.addSocket(s);
    ++connectionsAccepted;
    listener->accept(availableInfo->getNewSocketId());
}

void WwwClientApp::socketEstablished(TcpSocket *)
{
    EV_INFO << "connected\n";
    flush();
}

void WwwClientApp::socketPeerClosed(TcpSocket *s)
{
    // The peer will send no more: close our half too (the ns-3 sockets do the same on close).
    if (s->getState() == TcpSocket::PEER_CLOSED) {
        EV_INFO << "remote TCP closed, closing here as well\n";
        s->close();
    }
}

void WwwClientApp::socketClosed(TcpSocket *)
{
    EV_INFO << "connection closed\n";
    if (operationalState == State::STOPPING_OPERATION && !socket.isOpen()) {
        bool open = false;
        for (auto& entry : accepted.getMap())
            open = open || entry.second->isOpen();
        if (!open)
            startActiveOperationExtraTimeOrFinish(par("stopOperationExtraTime"));
    }
}

void WwwClientApp::socketFailure(TcpSocket *, int code)
{
    EV_WARN << "connection broken (" << code << ")\n";
}

void WwwClientApp::handleStopOperation(LifecycleOperation *operation)
{
    cancelEvent(startTimer);
    cancelEvent(pageTimer);
    cancelEvent(requestTimer);
    for (auto& entry : accepted.getMap())
        if (entry.second->isOpen())
            entry.second->close();
    if (socket.isOpen())
        socket.close();
    delayActiveOperationFinish(par("stopOperationTimeout"));
}

void WwwClientApp::handleCrashOperation(LifecycleOperation *operation)
{
    cancelEvent(startTimer);
    cancelEvent(pageTimer);
    cancelEvent(requestTimer);
    if (operation->getRootModule() != getContainingNode(this)) {
        for (auto& entry : accepted.getMap())
            entry.second->destroy();
        socket.destroy();
    }
    accepted.deleteSockets();
}

void WwwClientApp::refreshDisplay() const
{
    ApplicationBase::refreshDisplay();
    char buf[80];
    snprintf(buf, sizeof(buf), "rcvd: %llu B\npages %llu, requests %llu", (unsigned long long)receivedBytes,
            (unsigned long long)pagesStarted, (unsigned long long)requestsSent);
    getDisplayString().setTagArg("t", 0, buf);
}

void WwwClientApp::finish()
{
    recordScalar("inOrderBytes", receivedBytes, "B");
    recordScalar("receivedPackets", receivedPackets);
    if (bulk)
        recordScalar("connectionsAccepted", connectionsAccepted);
    else {
        recordScalar("pages", pagesStarted);
        if (afterBatch)
            recordScalar("pagesDone", pagesCompleted);
        recordScalar("requests", requestsSent);
        recordScalar("startPhase", phase, "s");
    }
}

} // namespace goyal98
} // namespace satsweep
