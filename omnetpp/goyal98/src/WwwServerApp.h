/*
 * The server side of the goyal98 load in INET: the twin of the ns-3 model's WwwServer
 * (sim/model/www-server.h), and of satnet's BulkSendApplication for the bulk workload.
 */
#ifndef SATSWEEP_GOYAL98_WWWSERVERAPP_H
#define SATSWEEP_GOYAL98_WWWSERVERAPP_H

#include "SpecwebFileSize.h"

#include "inet/applications/base/ApplicationBase.h"
#include "inet/transportlayer/contract/tcp/TcpSocket.h"

#include <cstdint>

namespace satsweep {
namespace goyal98 {

/**
 * WWW server serving one client over one persistent connection, infinitely fast (workload
 * "www"), or the sender of an endless transfer to the client (workload "bulk"). See
 * WwwServerApp.ned for the parameters.
 */
class WwwServerApp : public inet::ApplicationBase, public inet::TcpSocket::ICallback
{
  public:
    WwwServerApp() = default;
    ~WwwServerApp() override;

    /// @return sum of the file sizes drawn for the requests read so far (B): S_i's numerator.
    /// Meaningless for bulk (0).
    uint64_t bytesAsked() const { return askedBytes; }
    /// @return complete requests read so far (one file each)
    uint64_t requests() const { return requestsRead; }
    /// @return bytes handed to TCP so far
    uint64_t bytesQueued() const { return queuedBytes; }
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

  private:
    /// bulk: connects to the client and fills the send queue.
    void startBulk();
    /// bulk: hands TCP another bulkQueueBytes.
    void topUp();
    /// Hands @p bytes to TCP on the connection.
    void send(uint64_t bytes, const char *name);
    /// @return the connection, or nullptr
    inet::TcpSocket *connection() const;
    /// @return true if the connection takes sends
    bool canSend() const;
    /// @return true once stopTime has passed
    bool stopped() const;
    /// Finishes a stop operation once all sockets are closed.
    void checkStopped();

    // parameters
    bool bulk = false;
    omnetpp::simtime_t startTime;
    omnetpp::simtime_t stopTime;
    uint32_t requestBytes = 128;
    uint64_t bulkQueueBytes = 0;
    SpecwebSizeDistribution fileSizes;

    // state
    inet::TcpSocket listener;           ///< www: the listening socket; bulk: the connection
    inet::TcpSocket *client = nullptr;  ///< www: the accepted connection (owned)
    omnetpp::cMessage *startTimer = nullptr;
    uint64_t partialRequestBytes = 0;   ///< bytes of a request not yet complete
    uint64_t requestsRead = 0;          ///< complete requests read
    uint64_t askedBytes = 0;            ///< sum of file sizes drawn
    uint64_t queuedBytes = 0;           ///< bytes handed to TCP
    uint64_t receivedBytes = 0;         ///< request bytes read
    uint64_t topUps = 0;                ///< bulk: send-queue top-ups
    uint64_t refused = 0;               ///< www: connections refused (a second client)

    static omnetpp::simsignal_t fileQueuedSignal;
};

} // namespace goyal98
} // namespace satsweep

#endif
