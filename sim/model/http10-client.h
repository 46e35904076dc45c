/*
 * An HTTP/1.0 client as WebStone's: requests back to back, each on a new connection.
 */
#ifndef SATNET_HTTP10_CLIENT_H
#define SATNET_HTTP10_CLIENT_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>

namespace ns3
{

class Socket;

/**
 * @brief A WebStone client against an HTTP/1.0 server (Http10Server): it opens a connection to
 * Remote, sends a request of RequestBytes, reads the document until the server closes the
 * connection, closes its side and at once opens the next request's connection (no think time,
 * a closed loop: WebStone's clients request back to back).
 *
 * A request's response time runs from its connection request (the start of the request, as the
 * request cannot go before the handshake) to the arrival of the document's last byte, known
 * when the server's FIN arrives in order behind it. The traces give each request's socket before
 * it connects (to configure it) and each response. A connection that fails (reset, or its
 * retries run out) ends its request without a response (GetFailures()), and the next one starts.
 */
class Http10Client : public Application
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    Http10Client();
    ~Http10Client() override;

    /**
     * @brief TracedCallback signature of a request's start.
     * @param request its index on this client, from 0
     * @param socket its connection, bound and about to connect
     */
    typedef void (*RequestStartTracedCallback)(uint32_t request, Ptr<Socket> socket);
    /**
     * @brief TracedCallback signature of a response: the document arrived whole.
     * @param request its index on this client
     * @param bytes the document's size
     * @param responseTime from the connection request to the document's last byte
     */
    typedef void (*ResponseTracedCallback)(uint32_t request, uint64_t bytes, Time responseTime);

    /// @return requests started so far (the last one may be open)
    uint32_t GetRequests() const;
    /// @return requests whose document arrived whole
    uint32_t GetResponses() const;
    /// @return requests whose connection failed
    uint32_t GetFailures() const;
    /// @return bytes of documents read so far, the open request's included
    uint64_t GetBytesReceived() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Opens the next request's connection.
    void StartRequest();
    /// Connected: sends the request.
    void OnConnected(Ptr<Socket> socket);
    /// Reads the document.
    void HandleRead(Ptr<Socket> socket);
    /// The server closed after the document: the response is whole.
    void OnServerClose(Ptr<Socket> socket);
    /// The connection failed: the request ends without a response.
    void OnFailure(Ptr<Socket> socket);
    /// Closes the request's connection and starts the next request.
    void Next();

    Address m_peer;          //!< the server's address and port
    TypeId m_tid;            //!< socket factory
    uint32_t m_requestBytes; //!< bytes of one request
    uint32_t m_maxRequests;  //!< 0: until the application stops

    bool m_running{false};   //!< started and not stopped
    Ptr<Socket> m_socket;    //!< the open request's connection
    Time m_start;            //!< when the open request started
    Time m_lastByte;         //!< when its last bytes so far arrived
    uint64_t m_documentBytes{0}; //!< bytes of its document read so far
    uint32_t m_requests{0};  //!< requests started
    uint32_t m_responses{0}; //!< responses whole
    uint32_t m_failures{0};  //!< connections failed
    uint64_t m_bytesReceived{0}; //!< all documents' bytes read

    TracedCallback<uint32_t, Ptr<Socket>> m_startTrace;         //!< a request starts
    TracedCallback<uint32_t, uint64_t, Time> m_responseTrace;   //!< a response is whole
};

} // namespace ns3

#endif // SATNET_HTTP10_CLIENT_H
