/*
 * The client side of the WWW load: pages of pipelined requests on a persistent connection.
 */
#ifndef SATNET_WWW_CLIENT_H
#define SATNET_WWW_CLIENT_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>

namespace ns3
{

class Packet;
class Socket;
class TruncatedPoissonRandomVariable;
class UniformRandomVariable;

/**
 * @brief WWW client: a page of pipelined requests every PagePeriod over one connection.
 *
 * At start it connects once to Remote (HTTP/1.1, persistent). Its first page starts after a
 * phase drawn uniformly in [0, PagePeriod) (the study is silent on phases; RandomStartPhase
 * false starts at once), then one page every PagePeriod. A page is k requests,
 * k ~ Poisson(MeanRequestsPerPage) kept within [MinRequestsPerPage, MaxRequestsPerPage]
 * (redrawn, see TruncatedPoissonRandomVariable): the first at the page start, each next one a
 * U[MinGap, MaxGap] gap later. Each request is a send of RequestBytes; the client never waits
 * for answers (pipelining). Requests sent before the handshake completes wait in TCP's send
 * buffer; any the buffer cannot take wait in a backlog pushed from the send callback.
 *
 * A page must end before the next starts: the application aborts at start unless
 * (MaxRequestsPerPage - 1) x MaxGap < PagePeriod (8 x 500 ms < 10 s with the defaults).
 *
 * It reads everything the server sends. TCP delivers in order, so GetBytesReceived(), the
 * total read, is the highest in-order byte received: the numerator of x_i.
 *
 * Stopping the application ends the pages (no further request is sent) but the connection stays
 * open and the client keeps reading and counting what the server still sends, until the
 * simulation ends.
 */
class WwwClient : public Application
{
  public:
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
    /// @return the client's socket, or nullptr before start
    Ptr<Socket> GetSocket() const;

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Starts a page: draws its request count, sends the first, schedules the next page.
    void StartPage();
    /**
     * @brief Sends one request and schedules the next one of the page.
     * @param remaining requests of the page still to send, this one included
     */
    void SendRequest(uint32_t remaining);
    /// Hands the request backlog to TCP as far as its send buffer takes it.
    void Flush();
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
    Time m_startPhase;           //!< phase drawn at start
    Ptr<Socket> m_socket;        //!< the connection
    EventId m_pageEvent;         //!< next page start
    EventId m_requestEvent;      //!< next request of the current page
    uint64_t m_backlog{0};       //!< request bytes TCP has not accepted yet
    uint64_t m_requestsSent{0};  //!< requests issued
    uint64_t m_pages{0};         //!< pages started
    uint64_t m_bytesReceived{0}; //!< bytes read from the connection

    Ptr<UniformRandomVariable> m_phaseRv;             //!< draws the start phase
    Ptr<TruncatedPoissonRandomVariable> m_requestsRv; //!< draws the requests per page
    Ptr<UniformRandomVariable> m_gapRv;               //!< draws the gaps between requests

    TracedCallback<uint32_t> m_pageTrace;        //!< a page started
    TracedCallback<uint32_t> m_requestTrace;     //!< a request was issued
    TracedCallback<Ptr<const Packet>> m_rxTrace; //!< bytes were read
};

} // namespace ns3

#endif /* SATNET_WWW_CLIENT_H */
