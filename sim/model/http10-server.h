/*
 * An HTTP/1.0 server: one document per connection, the connection closed after it.
 */
#ifndef SATNET_HTTP10_SERVER_H
#define SATNET_HTTP10_SERVER_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <map>

namespace ns3
{

class Packet;
class Socket;
class TcpHeader;
class TcpSocketBase;

/**
 * @brief An infinitely fast web server as Apache 1.3 under WebStone (HTTP/1.0): it accepts
 * every connection on Local, reads one request of RequestBytes from it, draws the document's
 * size from DocumentSize, hands the document to TCP as its send buffer frees (the payload is
 * virtual) and closes the connection once all of it is handed over (the FIN follows the last
 * byte).
 *
 * The traces give each document's connection when its size is known and before its first byte
 * is queued, so that its send buffer and window can be set (SendBufferManager::Add()), and the
 * document's end, when its last byte is acknowledged. Bytes after the request are read and
 * ignored (a connection carries one request).
 */
class Http10Server : public Application
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    Http10Server();
    ~Http10Server() override;

    /**
     * @brief TracedCallback signature of a document's start.
     * @param document its index on this server, from 0
     * @param bytes its size
     * @param socket its connection, open, no byte of it queued yet
     */
    typedef void (*DocumentStartTracedCallback)(uint32_t document,
                                                uint64_t bytes,
                                                Ptr<Socket> socket);
    /**
     * @brief TracedCallback signature of a document's end: its last byte acknowledged.
     * @param document its index on this server
     */
    typedef void (*DocumentEndTracedCallback)(uint32_t document);

    /// @return the documents started so far
    uint32_t GetDocuments() const;

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    /// One connection's document.
    struct Response
    {
        uint32_t requestBytes = 0; //!< bytes of the request read so far
        bool started = false;      //!< its size drawn, the document begun
        uint32_t document = 0;     //!< its index
        uint64_t bytes = 0;        //!< its size
        uint64_t handed = 0;       //!< bytes of it handed to TCP
        bool ended = false;        //!< its last byte acknowledged
    };

    void StartApplication() override;
    void StopApplication() override;

    /// Takes a new connection.
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    /// Reads the request; when it is whole, starts the document.
    void HandleRead(Ptr<Socket> socket);
    /// Hands the document to TCP as far as its send buffer allows, and closes after it.
    void Push(Ptr<Socket> socket, uint32_t available);
    /// Ends the document when @p header acknowledges its last byte.
    void OnAck(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase> socket);

    Address m_local;                          //!< address to listen on
    TypeId m_tid;                             //!< socket factory
    uint32_t m_requestBytes;                  //!< bytes of one request
    Ptr<RandomVariableStream> m_documentSize; //!< bytes of each document
    Ptr<Socket> m_listener;                   //!< listening socket
    std::map<Socket*, Response> m_responses;  //!< the open connections' documents
    uint32_t m_documents{0};                  //!< documents started

    TracedCallback<uint32_t, uint64_t, Ptr<Socket>> m_startTrace; //!< a document starts
    TracedCallback<uint32_t> m_endTrace;                          //!< a document ends
};

} // namespace ns3

#endif // SATNET_HTTP10_SERVER_H
