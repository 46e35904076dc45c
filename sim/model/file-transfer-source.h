/*
 * A source of short TCP transfers: files one after the other, each on a new connection.
 */
#ifndef SATNET_FILE_TRANSFER_SOURCE_H
#define SATNET_FILE_TRANSFER_SOURCE_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/ptr.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"
#include "ns3/type-id.h"

#include <cstdint>

namespace ns3
{

class Socket;
class TcpHeader;
class TcpSocketBase;
class Packet;

/**
 * @brief Sends files of FileSize bytes to Remote, each on a new TCP connection, waiting Gap
 * seconds from the end of one transfer to the start of the next (Barakat & Altman's sources,
 * docs/studies/barakat.md, "Scenarios S1 and S2": S1 is one transfer, S2 successive transfers
 * with random gaps).
 *
 * A transfer starts with the connection request and ends when the last byte is acknowledged;
 * the connection is then closed. The file is handed to TCP as the send buffer frees (its payload
 * is virtual); a FileSize of 0 is a bulk transfer that never ends. The traces give each
 * transfer's socket as soon as it is bound, before it connects, so that it can be configured
 * and its sender's state followed, and its end.
 */
class FileTransferSource : public Application
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    FileTransferSource();
    ~FileTransferSource() override;

    /**
     * @brief TracedCallback signature of a transfer's start.
     * @param transfer its index on this source, from 0
     * @param bytes the file's size
     * @param socket its connection, bound and about to connect
     */
    typedef void (*TransferStartTracedCallback)(uint32_t transfer,
                                                uint64_t bytes,
                                                Ptr<Socket> socket);
    /**
     * @brief TracedCallback signature of a transfer's end: its last byte acknowledged.
     * @param transfer its index on this source
     */
    typedef void (*TransferEndTracedCallback)(uint32_t transfer);

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Opens the next transfer's connection.
    void StartTransfer();
    /// Hands the file to TCP as far as its send buffer allows.
    void Push(Ptr<Socket> socket, uint32_t available);
    /// Ends the transfer when @p header acknowledges its last byte.
    void OnAck(Ptr<const Packet> packet,
               const TcpHeader& header,
               Ptr<const TcpSocketBase> socket);

    Address m_peer;                       ///< the receiver's address and port
    TypeId m_tid;                         ///< socket factory
    Ptr<RandomVariableStream> m_fileSize; ///< bytes of each file
    Ptr<RandomVariableStream> m_gap;      ///< seconds from one end to the next start
    uint32_t m_maxTransfers{0};           ///< 0: no limit

    Ptr<Socket> m_socket;     ///< the current transfer's connection
    uint32_t m_transfers{0};  ///< transfers started
    uint64_t m_bytes{0};      ///< the current file's size
    uint64_t m_handed{0};     ///< bytes of it handed to TCP
    EventId m_next;           ///< the next transfer's start

    TracedCallback<uint32_t, uint64_t, Ptr<Socket>> m_startTrace; ///< a transfer starts
    TracedCallback<uint32_t> m_endTrace;                          ///< a transfer ends
};

} // namespace ns3

#endif // SATNET_FILE_TRANSFER_SOURCE_H
