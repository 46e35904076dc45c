/*
 * The client side of the WWW load: pages of pipelined requests on a persistent connection.
 */
#ifndef SATNET_WWW_CLIENT_H
#define SATNET_WWW_CLIENT_H

#include "www-connections.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class Packet;
class Socket;
class TruncatedPoissonRandomVariable;
class UniformRandomVariable;
class WwwServer;

/**
 * @brief WWW client: pages of pipelined requests, PagePeriod apart, over one connection (or one
 * per page).
 *
 * Connections (two readings of "all components of a web page are fetched in one TCP
 * connection", HTTP/1.1 "persistent until a Close request", and a stand-in for the second):
 * - run (the default): at start it connects once to Remote; every page uses that connection.
 * - page: each page connects anew to Remote (a new socket of the same factory: handshake,
 *   initial window, ssthresh and RTO) and sends its requests on it; after the page's last
 *   request it closes its side (TCP sends the FIN after the requests), and the server closes
 *   its side after its last answer. Pages' connections may overlap (PERIOD pacing, answers
 *   still arriving when the next page starts); each is read until the server closes it.
 * - pageReset: one connection as with run, but when a page starts with none of the client's
 *   requests queued or unacknowledged the client's sender is put back to a new connection's
 *   state (Ns2TcpSocket::ResetSenderState(): needs the ns2 TCP sender), and so is the server's
 *   when the page's first request finds it idle (WwwServer::NotePage()).
 *
 * Its first page starts after a phase drawn uniformly in [0, PagePeriod) (the study is silent
 * on phases; RandomStartPhase false starts at once). When the next page starts is PagePacing:
 * - PERIOD (the default): one page every PagePeriod, i.e. PagePeriod after the previous page
 *   *started*, whether or not its documents have arrived (an open loop: the demand does not
 *   depend on how fast the answers come).
 * - AFTER_BATCH: PagePeriod after the last document of the previous page has fully arrived (a
 *   closed loop: "the time taken by the user to request a new document"). The client learns
 *   each document's length from its server (SetResponseSource(), as a real client reads it from
 *   the response's Content-Length), and a page is done when every one of its requests has been
 *   answered and the client has read the bytes up to the end of its last answer.
 *
 * A page is k requests,
 * k ~ Poisson(MeanRequestsPerPage) kept within [MinRequestsPerPage, MaxRequestsPerPage]
 * (redrawn, see TruncatedPoissonRandomVariable): the first at the page start, each next one a
 * U[MinGap, MaxGap] gap later. Each request is a send of RequestBytes; the client never waits
 * for answers (pipelining). Requests sent before the handshake completes wait in TCP's send
 * buffer; any the buffer cannot take wait in a backlog pushed from the send callback.
 *
 * With PERIOD a page's requests must all be sent before the next page starts: the application
 * aborts at start unless (MaxRequestsPerPage - 1) x MaxGap < PagePeriod (8 x 500 ms < 10 s with
 * the defaults). With AFTER_BATCH it aborts at start unless SetResponseSource() was called.
 *
 * It reads everything the server sends. TCP delivers in order, so GetBytesReceived(), the
 * total read, is the highest in-order byte received (with page, summed over the connections):
 * the numerator of x_i.
 *
 * Stopping the application ends the pages (no further request is sent) but the open
 * connections stay open and the client keeps reading and counting what the server still sends,
 * until the simulation ends.
 */
class WwwClient : public Application
{
  public:
    /// When the next page starts (attribute PagePacing).
    enum class PagePacing
    {
        PERIOD,      ///< PagePeriod after the previous page started (open loop)
        AFTER_BATCH, ///< PagePeriod after the previous page's last document arrived (closed)
    };

    /// @return the object TypeId
    static TypeId GetTypeId();

    WwwClient();
    ~WwwClient() override;

    /**
     * @brief TracedCallback signature for page starts.
     * @param requests number of requests of the page
     */
    typedef void (*PageTracedCallback)(uint32_t requests);

    /**
     * @brief TracedCallback signature for requests.
     * @param bytes bytes of the request
     */
    typedef void (*RequestTracedCallback)(uint32_t bytes);

    /// @return bytes read from the connection so far (the highest in-order byte received)
    uint64_t GetBytesReceived() const;
    /// @return requests issued so far
    uint64_t GetRequestsSent() const;
    /// @return pages started so far
    uint64_t GetPages() const;
    /// @return delay from the application start to the first page
    Time GetStartPhase() const;
    /// @return the client's socket (the last page's with page), or nullptr before one exists
    Ptr<Socket> GetSocket() const;
    /// @return every socket the client opened, in order
    std::vector<Ptr<Socket>> GetSockets() const;
    /// @return the times a page start reset the client's sender (pageReset)
    uint64_t GetSenderResets() const;
    /// @return pages whose documents have all arrived (counted with AFTER_BATCH only)
    uint64_t GetPagesDone() const;

    /**
     * @brief Tells the client the length of every answer: @p server's file sizes, in the order
     * of the requests (its Request trace). WwwHelper::Install calls it for each pair.
     * @param server the server this client's requests go to
     */
    void SetResponseSource(Ptr<WwwServer> server);

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    /// One connection the client opened and its requests TCP has not taken yet.
    struct Connection
    {
        Ptr<Socket> socket;    //!< the socket
        uint64_t backlog{0};   //!< request bytes TCP has not accepted yet
        bool closing{false};   //!< page: close once the backlog is in TCP
        bool closed{false};    //!< page: closed
    };

    void StartApplication() override;
    /// Opens a connection to Remote: the current one from now on.
    void Connect();
    /// @return the connection of @p socket
    Connection& Find(Ptr<Socket> socket);
    void StopApplication() override;

    /// Starts a page: draws its request count, sends the first, schedules the next page.
    void StartPage();
    /**
     * @brief Sends one request and schedules the next one of the page.
     * @param remaining requests of the page still to send, this one included
     */
    void SendRequest(uint32_t remaining);
    /**
     * Hands @p connection's request backlog to TCP as far as its send buffer takes it, then
     * closes it if it is closing and nothing is left.
     * @param connection the connection
     */
    void Flush(Connection& connection);
    /**
     * @brief Notes the length of the answer to the next request (the server drew its file).
     * @param fileBytes the file's size
     */
    void NoteResponse(uint32_t fileBytes);
    /// With AFTER_BATCH: when the open page's documents have all arrived, schedules the next.
    void CheckPageDone();
    /**
     * @brief Counts what the server sent.
     * @param socket the connection
     */
    void HandleRead(Ptr<Socket> socket);
    /**
     * @brief Pushes the request backlog when the send buffer has room.
     * @param socket the connection
     * @param available free bytes in the send buffer
     */
    void HandleSend(Ptr<Socket> socket, uint32_t available);
    /**
     * @brief Logs a failed connection attempt.
     * @param socket the connection
     */
    void HandleConnectionFailed(Ptr<Socket> socket);

    Address m_peer;              //!< server address
    TypeId m_tid;                //!< socket factory
    Time m_pagePeriod;           //!< time between page starts
    double m_meanRequests;       //!< Poisson mean of the requests per page
    uint32_t m_minRequests;      //!< fewest requests per page
    uint32_t m_maxRequests;      //!< most requests per page
    Time m_minGap;               //!< shortest gap between the requests of a page
    Time m_maxGap;               //!< longest gap between the requests of a page
    uint32_t m_requestBytes;     //!< bytes of one request
    bool m_randomStartPhase;     //!< first page after a U[0, PagePeriod) phase
    PagePacing m_pagePacing{PagePacing::PERIOD}; //!< when the next page starts
    Time m_startPhase;           //!< phase drawn at start
    WwwConnections m_connectionsMode{WwwConnections::RUN}; //!< connections per run or page
    Ptr<Socket> m_socket;        //!< the current connection's socket
    std::deque<Connection> m_connections; //!< every connection opened, in order (stable)
    uint64_t m_senderResets{0};  //!< pageReset: resets done
    EventId m_pageEvent;         //!< next page start
    EventId m_requestEvent;      //!< next request of the current page
    uint64_t m_requestsSent{0};  //!< requests issued
    uint64_t m_pages{0};         //!< pages started
    uint64_t m_bytesReceived{0}; //!< bytes read from the connection
    bool m_running{false};       //!< started and not stopped
    bool m_hasResponseSource{false}; //!< SetResponseSource() was called
    uint64_t m_responses{0};     //!< answers whose length is known (requests the server read)
    uint64_t m_responseEnd{0};   //!< byte of the stream where the last of them ends
    bool m_pageOpen{false};      //!< AFTER_BATCH: a page's documents are still to arrive
    Time m_pageStart;            //!< AFTER_BATCH: start of the open page
    uint64_t m_pageLastRequest{0}; //!< AFTER_BATCH: number of the open page's last request
    uint64_t m_pagesDone{0};     //!< AFTER_BATCH: pages whose documents have all arrived

    Ptr<UniformRandomVariable> m_phaseRv;             //!< draws the start phase
    Ptr<TruncatedPoissonRandomVariable> m_requestsRv; //!< draws the requests per page
    Ptr<UniformRandomVariable> m_gapRv;               //!< draws the gaps between requests

    TracedCallback<uint32_t> m_pageTrace;        //!< a page started
    TracedCallback<Time> m_pageDoneTrace;        //!< AFTER_BATCH: a page's documents arrived
    TracedCallback<uint32_t> m_requestTrace;     //!< a request was issued
    TracedCallback<Ptr<const Packet>> m_rxTrace; //!< bytes were read
};

} // namespace ns3

#endif /* SATNET_WWW_CLIENT_H */
