#include "model/file-transfer-source.h"

#include "ns3/address-utils.h"
#include "ns3/log.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"

#include <cstdint>
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FileTransferSource");
NS_OBJECT_ENSURE_REGISTERED(FileTransferSource);

TypeId
FileTransferSource::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::FileTransferSource")
            .SetParent<Application>()
            .SetGroupName("Satnet")
            .AddConstructor<FileTransferSource>()
            .AddAttribute("Remote",
                          "Address and port of the receiver.",
                          AddressValue(),
                          MakeAddressAccessor(&FileTransferSource::m_peer),
                          MakeAddressChecker())
            .AddAttribute("Protocol",
                          "TypeId of the socket factory of the connections.",
                          TypeIdValue(TcpSocketFactory::GetTypeId()),
                          MakeTypeIdAccessor(&FileTransferSource::m_tid),
                          MakeTypeIdChecker())
            .AddAttribute("FileSize",
                          "Bytes of each file, drawn at its start (rounded); 0: an endless (bulk) "
                          "transfer, its connection kept full while the application runs.",
                          StringValue("ns3::ConstantRandomVariable[Constant=102400]"),
                          MakePointerAccessor(&FileTransferSource::m_fileSize),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("Gap",
                          "Seconds from the end of a transfer to the start of the next.",
                          StringValue("ns3::ConstantRandomVariable[Constant=0]"),
                          MakePointerAccessor(&FileTransferSource::m_gap),
                          MakePointerChecker<RandomVariableStream>())
            .AddAttribute("MaxTransfers",
                          "Transfers to make; 0: until the application stops.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&FileTransferSource::m_maxTransfers),
                          MakeUintegerChecker<uint32_t>())
            .AddTraceSource("TransferStart",
                            "A transfer's connection was opened.",
                            MakeTraceSourceAccessor(&FileTransferSource::m_startTrace),
                            "ns3::FileTransferSource::TransferStartTracedCallback")
            .AddTraceSource("TransferEnd",
                            "A transfer's last byte was acknowledged.",
                            MakeTraceSourceAccessor(&FileTransferSource::m_endTrace),
                            "ns3::FileTransferSource::TransferEndTracedCallback");
    return tid;
}

FileTransferSource::FileTransferSource()
{
    NS_LOG_FUNCTION(this);
}

FileTransferSource::~FileTransferSource()
{
    NS_LOG_FUNCTION(this);
}

int64_t
FileTransferSource::AssignStreams(int64_t stream)
{
    m_fileSize->SetStream(stream);
    m_gap->SetStream(stream + 1);
    return 2;
}

void
FileTransferSource::DoDispose()
{
    m_socket = nullptr;
    Application::DoDispose();
}

void
FileTransferSource::StartApplication()
{
    StartTransfer();
}

void
FileTransferSource::StopApplication()
{
    m_next.Cancel();
}

void
FileTransferSource::StartTransfer()
{
    m_bytes = static_cast<uint64_t>(std::max(0.0, std::round(m_fileSize->GetValue())));
    m_handed = 0;
    m_socket = Socket::CreateSocket(GetNode(), m_tid);
    m_socket->SetSendCallback(MakeCallback(&FileTransferSource::Push, this));
    m_socket->TraceConnectWithoutContext("Rx", MakeCallback(&FileTransferSource::OnAck, this));
    m_socket->Bind();
    // Before Connect(): what is set on the socket from the trace (its segment size, initial
    // window, send buffer) holds from the SYN on.
    m_startTrace(m_transfers++, m_bytes, m_socket);
    m_socket->Connect(m_peer);
}

void
FileTransferSource::Push(Ptr<Socket> socket, uint32_t available)
{
    // Connected, or room freed: hand TCP what fits (a send before the handshake would fail).
    while ((m_bytes == 0 || m_handed < m_bytes) && socket->GetTxAvailable() > 0)
    {
        const uint64_t left = m_bytes == 0 ? UINT32_MAX : m_bytes - m_handed;
        const uint64_t size = std::min<uint64_t>(left, socket->GetTxAvailable());
        const int sent = socket->Send(Create<Packet>(static_cast<uint32_t>(size)));
        if (sent <= 0)
        {
            return;
        }
        m_handed += static_cast<uint64_t>(sent);
    }
}

void
FileTransferSource::OnAck(Ptr<const Packet>,
                          const TcpHeader& header,
                          Ptr<const TcpSocketBase> socket)
{
    // ns-3's initial sequence number is 0 and the SYN takes one: the file is bytes 1..m_bytes.
    // A finished transfer's socket stays connected to this trace until it is gone: disconnecting
    // inside the trace would break its iteration.
    if (m_bytes == 0 || PeekPointer(socket) != PeekPointer(m_socket) ||
        !(header.GetFlags() & TcpHeader::ACK) ||
        header.GetAckNumber() < SequenceNumber32(static_cast<uint32_t>(m_bytes + 1)))
    {
        return;
    }
    Ptr<Socket> done = m_socket;
    m_socket = nullptr;
    done->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
    m_endTrace(m_transfers - 1);
    // Close after this ACK is processed: the socket is in the middle of handling it.
    Simulator::ScheduleNow([done]() { done->Close(); });
    if (m_maxTransfers == 0 || m_transfers < m_maxTransfers)
    {
        m_next = Simulator::Schedule(Seconds(std::max(0.0, m_gap->GetValue())),
                                     &FileTransferSource::StartTransfer,
                                     this);
    }
}

} // namespace ns3
