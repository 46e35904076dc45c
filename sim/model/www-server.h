/*
 * The server side of the WWW load: an infinitely fast HTTP/1.1 server.
 */
#ifndef SATNET_WWW_SERVER_H
#define SATNET_WWW_SERVER_H

#include "www-connections.h"

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class Socket;
class SpecwebFileSize;

/**
 * @brief WWW server serving one client over one persistent connection, or one per page.
 *
 * It listens on Local and accepts the connections of its client: with Connections run or
 * pageReset one (a second one is refused), with page any number, each served on its own. It is
 * infinitely fast: every complete request of RequestBytes read from a connection's byte stream
 * (requests may arrive split or coalesced; only the byte count matters) makes it draw a file
 * size and queue that many bytes on that connection's send buffer. What does not fit waits in
 * the connection's backlog, pushed in order whenever the socket reports free send buffer.
 *
 * With page, the client closes its side after a page's last request; once the server has read
 * that close and handed the connection's whole backlog to TCP, it closes its side too, and TCP
 * sends the FIN after the last answer's bytes. With pageReset, when the first request of a page
 * (NotePage(), wired to the client's PageStart trace by WwwHelper) is read on a connection with
 * nothing queued or unacknowledged, the sender is put back to a new connection's state
 * (Ns2TcpSocket::ResetSenderState(): needs the ns2 TCP sender) before the file is queued.
 *
 * Counters: GetBytesRequested() is the sum of the sizes of the files drawn (the numerator of
 * S_i, "bytes the server was asked to send"); GetBytesQueued() is what TCP has accepted so far;
 * the difference is the backlog.
 *
 * Stopping the application closes the listening socket and stops reading requests; files
 * already requested keep being pushed to TCP.
 */
class WwwServer : public Application
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    WwwServer();
    ~WwwServer() override;

    /**
     * @brief TracedCallback signature for a request served.
     * @param fileBytes size of the file drawn for the request
     */
    typedef void (*RequestTracedCallback)(uint32_t fileBytes);

    /// @return sum of the file sizes drawn for the requests read so far (bytes)
    uint64_t GetBytesRequested() const;
    /// @return the number of complete requests read so far (one file each)
    uint64_t GetRequests() const;
    /// @return bytes accepted by the connection's send buffer so far
    uint64_t GetBytesQueued() const;
    /// @return bytes requested but not yet accepted by the send buffer
    uint64_t GetBacklog() const;
    /// @return the last connection accepted, or nullptr before the client connects
    Ptr<Socket> GetConnection() const;
    /// @return every connection accepted, in order
    std::vector<Ptr<Socket>> GetConnections() const;
    /// @return the times a page's first request reset the connection's sender (pageReset)
    uint64_t GetSenderResets() const;
    /**
     * @brief Notes that the client started a page (its PageStart trace): with pageReset, the
     * page's first request is the one after the requests of the pages noted before.
     * @param requests requests of the page
     */
    void NotePage(uint32_t requests);
    /// @return the file size distribution
    Ptr<SpecwebFileSize> GetFileSize();

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    /// One accepted connection and what it still has to send.
    struct Connection
    {
        Ptr<Socket> socket;               //!< the connected socket
        uint32_t sendBufferBytes{0};      //!< its send buffer (free when accepted)
        uint32_t partialRequestBytes{0};  //!< bytes of a request not yet complete
        uint64_t bytesRequested{0};       //!< sum of the file sizes drawn on it
        uint64_t bytesQueued{0};          //!< bytes its send buffer accepted
        bool peerClosed{false};           //!< the client closed its side (page)
        bool closed{false};               //!< this side was closed
    };

    void StartApplication() override;
    void StopApplication() override;

    /// @return the connection of @p socket
    Connection& Find(Ptr<Socket> socket);
    /**
     * @brief Accepts a connection request: with run and pageReset only while no client is
     * connected.
     * @param socket the listening socket
     * @param from the client's address
     * @return true to accept
     */
    bool HandleConnectionRequest(Ptr<Socket> socket, const Address& from);
    /**
     * @brief Takes the new connection.
     * @param socket the connected socket
     * @param from the client's address
     */
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    /**
     * @brief Reads requests and queues their files.
     * @param socket the connection
     */
    void HandleRead(Ptr<Socket> socket);
    /**
     * @brief Pushes the backlog when the send buffer has room.
     * @param socket the connection
     * @param available free bytes in the send buffer
     */
    void HandleSend(Ptr<Socket> socket, uint32_t available);
    /**
     * @brief With page: the client closed its side; this side closes once its backlog is in TCP.
     * @param socket the connection
     */
    void HandlePeerClose(Ptr<Socket> socket);
    /**
     * Queues as much of @p connection's backlog as its send buffer takes, in pieces of at most
     * PieceBytes, once it has room for all of it or for RefillBytes (at most half the buffer): a
     * full buffer is not topped up by every ACK's worth, as each piece is a packet of its own
     * there (memory per packet, not per byte). Closes this side when the client closed its side
     * and the backlog is all in TCP.
     * @param connection the connection
     */
    void Flush(Connection& connection);
    /**
     * @brief With pageReset, before the request numbered @p request is served on @p connection:
     * resets the sender if the request starts a page and the connection is idle.
     */
    void ResetIfPageStarts(Connection& connection, uint64_t request);

    Address m_local;                   //!< address to listen on
    TypeId m_tid;                      //!< socket factory
    uint32_t m_requestBytes;           //!< bytes of one request
    uint32_t m_refillBytes;            //!< least room a full send buffer is topped up by
    uint32_t m_pieceBytes;             //!< largest packet handed to the send buffer
    WwwConnections m_connectionsMode{WwwConnections::RUN}; //!< connections per run or page
    Ptr<SpecwebFileSize> m_fileSize;   //!< file size distribution
    Ptr<Socket> m_listener;            //!< listening socket
    Ptr<Socket> m_connection;          //!< the last connection accepted
    std::deque<Connection> m_connections; //!< every connection accepted, in order (stable)
    std::deque<uint64_t> m_pageFirstRequests; //!< pageReset: first request of each page noted
    uint64_t m_pageRequestsNoted{0};   //!< pageReset: requests of the pages noted
    uint64_t m_senderResets{0};        //!< pageReset: resets done
    uint64_t m_requests{0};            //!< complete requests read
    uint64_t m_bytesRequested{0};      //!< sum of file sizes drawn
    uint64_t m_bytesQueued{0};         //!< bytes accepted by the send buffer

    TracedCallback<uint32_t> m_requestTrace; //!< a request was read; file size
};

} // namespace ns3

#endif /* SATNET_WWW_SERVER_H */
