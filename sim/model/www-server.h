/*
 * The server side of the WWW load: an infinitely fast HTTP/1.1 server.
 */
#ifndef SATNET_WWW_SERVER_H
#define SATNET_WWW_SERVER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>

namespace ns3
{

class Socket;
class SpecwebFileSize;

/**
 * @brief WWW server serving one client over one persistent connection.
 *
 * It listens on Local and accepts the connection of its client (a second one is refused). It is
 * infinitely fast: every complete request of RequestBytes read from the byte stream (requests
 * may arrive split or coalesced; only the byte count matters) makes it draw a file size and
 * queue that many bytes on the connection's send buffer. What does not fit waits in a backlog
 * that is pushed, in order, whenever the socket reports free send buffer.
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
    /// @return the accepted connection, or nullptr before the client connects
    Ptr<Socket> GetConnection() const;
    /// @return the file size distribution
    Ptr<SpecwebFileSize> GetFileSize();

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /**
     * @brief Accepts a connection request only while no client is connected.
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
     * Queues as much of the backlog as the send buffer takes, in pieces of at most PieceBytes,
     * once it has room for all of it or for RefillBytes (at most half the buffer): a full buffer
     * is not topped up by every ACK's worth, as each piece is a packet of its own there (memory
     * per packet, not per byte).
     */
    void Flush();

    Address m_local;                   //!< address to listen on
    TypeId m_tid;                      //!< socket factory
    uint32_t m_requestBytes;           //!< bytes of one request
    uint32_t m_refillBytes;            //!< least room a full send buffer is topped up by
    uint32_t m_pieceBytes;             //!< largest packet handed to the send buffer
    uint32_t m_sendBufferBytes{0};     //!< the connection's send buffer (free when accepted)
    Ptr<SpecwebFileSize> m_fileSize;   //!< file size distribution
    Ptr<Socket> m_listener;            //!< listening socket
    Ptr<Socket> m_connection;          //!< the client's connection
    uint32_t m_partialRequestBytes{0}; //!< bytes of a request not yet complete
    uint64_t m_requests{0};            //!< complete requests read
    uint64_t m_bytesRequested{0};      //!< sum of file sizes drawn
    uint64_t m_bytesQueued{0};         //!< bytes accepted by the send buffer

    TracedCallback<uint32_t> m_requestTrace; //!< a request was read; file size
};

} // namespace ns3

#endif /* SATNET_WWW_SERVER_H */
