/*
 * The client side of the goyal98 load in INET: the twin of the ns-3 model's WwwClient
 * (sim/model/www-client.h), and of satnet's PacketSink for the bulk workload.
 */
#ifndef SATSWEEP_GOYAL98_WWWCLIENTAPP_H
#define SATSWEEP_GOYAL98_WWWCLIENTAPP_H

#include "TruncatedPoisson.h"

#include "inet/applications/base/ApplicationBase.h"
#include "inet/common/socket/SocketMap.h"
#include "inet/transportlayer/contract/tcp/TcpSocket.h"

#include <cstdint>

namespace satsweep {
namespace goyal98 {

/**
 * WWW client: a page of pipelined requests every pagePeriod over one persistent connection
 * (workload "www"), or the receiving end of an endless transfer from the server (workload
 * "bulk"). See WwwClientApp.ned for the parameters.
 *
 * Everything received is counted: TCP delivers in order, so inOrderBytes() is the highest
 * in-order byte received, the numerator of x_i.
 */
class WwwClientApp : public inet::ApplicationBase, public inet::TcpSocket::ICallback, public omnetpp::cListener
{
  public:
    WwwClientApp() = default;
    ~WwwClientApp() override;

    /// @return bytes received in order so far (all connections; one for www)
    uint64_t inOrderBytes() const { return receivedBytes; }
    /// @return requests issued so far (www)
    uint64_t requests() const { return requestsSent; }
    /// @return pages started so far (www)
    uint64_t pages() const { return pagesStarted; }
    /// @return pages whose documents have all arrived (www, pagePacing "afterBatch" only)
    uint64_t pagesDone() const { return pagesCompleted; }
    /// @return delay from the start to the first page (www; drawn at the start)
    omnetpp::simtime_t startPhase() const { return phase; }
    /// @return true for the bulk workload
    bool isBulk() const { return bulk; }

  protected:
    int numInitStages() const override { return inet::NUM_INIT_STAGES; }
    void initialize(int stage) override;
    void finish() override;
    void refreshDisplay() const override;

    void handleMessageWhenUp(omnetpp::cMessage *msg) override;
    void handleStartOperation(inet::LifecycleOperation *operation) override;
    void handleStopOperation(inet::LifecycleOperation *operation) override;
    void handleCrashOperation(inet::LifecycleOperation *operation) override;

    // TcpSocket::ICallback
    void socketDataArrived(inet::TcpSocket *socket, inet::Packet *packet, bool urgent) override;
    void socketAvailable(inet::TcpSocket *socket, inet::TcpAvailableInfo *availableInfo) override;
    void socketEstablished(inet::TcpSocket *socket) override;
    void socketPeerClosed(inet::TcpSocket *socket) override;
    void socketClosed(inet::TcpSocket *socket) override;
    void socketFailure(inet::TcpSocket *socket, int code) override;
    void socketStatusArrived(inet::TcpSocket *socket, inet::TcpStatusInfo *status) override {}
    void socketDeleted(inet::TcpSocket *socket) override {}

    // cListener: the server app's fileQueued signal (pagePacing "afterBatch")
    void receiveSignal(omnetpp::cComponent *source, omnetpp::simsignal_t signal, omnetpp::intval_t value, omnetpp::cObject *details) override;

  private:
    /// www: opens the connection, draws the phase and schedules the first page.
    void start();
    /// Starts a page: draws its request count, schedules the next page, sends the first request.
    void startPage();
    /// Sends one request and schedules the next one of the page (requestsLeft counts this one).
    void sendRequest();
    /// Hands the request backlog to TCP if the connection is open.
    void flush();
    /// @return true while the connection takes sends
    bool canSend() const;
    /// afterBatch: when the open page's documents have all arrived, schedules the next page.
    void checkPageDone();

    // parameters
    bool bulk = false;
    TruncatedPoisson::Bounds bounds = TruncatedPoisson::CLAMP;
    omnetpp::simtime_t startTime;
    omnetpp::simtime_t stopTime;
    omnetpp::simtime_t pagePeriod;
    bool afterBatch = false; ///< pagePacing "afterBatch"
    bool randomStartPhase = true;
    double meanRequests = 5;
    uint32_t minRequests = 1;
    uint32_t maxRequests = 9;
    omnetpp::simtime_t minGap;
    omnetpp::simtime_t maxGap;
    uint32_t requestBytes = 128;

    // state
    inet::TcpSocket socket;   ///< www: the connection; bulk: the listening socket
    inet::SocketMap accepted; ///< bulk: the accepted connections (owned)
    omnetpp::cMessage *startTimer = nullptr;
    omnetpp::cMessage *pageTimer = nullptr;
    omnetpp::cMessage *requestTimer = nullptr;
    uint32_t requestsLeft = 0;        ///< requests of the current page still to send
    uint64_t backlog = 0;             ///< request bytes not yet handed to TCP
    omnetpp::simtime_t phase;         ///< the start phase drawn
    uint64_t receivedBytes = 0;       ///< bytes read from the connection(s)
    uint64_t receivedPackets = 0;     ///< deliveries from TCP
    uint64_t requestsSent = 0;        ///< requests issued
    uint64_t pagesStarted = 0;        ///< pages started
    uint64_t connectionsAccepted = 0; ///< bulk: connections accepted
    omnetpp::cModule *responseSource = nullptr; ///< afterBatch: the server app, subscribed to
    uint64_t responses = 0;           ///< answers whose length is known (requests the server read)
    uint64_t responseEnd = 0;         ///< byte of the stream where the last of them ends
    bool pageOpen = false;            ///< afterBatch: a page's documents are still to arrive
    uint64_t pageLastRequest = 0;     ///< afterBatch: number of the open page's last request
    uint64_t pagesCompleted = 0;      ///< afterBatch: pages whose documents have all arrived
};

} // namespace goyal98
} // namespace satsweep

#endif
