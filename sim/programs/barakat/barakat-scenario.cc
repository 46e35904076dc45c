#include "barakat-scenario.h"

#include "helper/bottleneck-path-helper.h"
#include "helper/tcp-flavor-helper.h"
#include "model/file-transfer-source.h"
#include "model/ns2-tcp-socket.h"
#include "model/tcp-flavor-socket-factory.h"

#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-header.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <map>
#include <optional>
#include <utility>
#include <vector>

using namespace ns3;
using satsweep::Json;
using satsweep::MeanOrNull;
using satsweep::ValueType;

namespace barakat
{

namespace
{

constexpr uint16_t kPort = 5001;

/// One file transfer as the result reports it.
struct Transfer
{
    uint32_t source = 0;          //!< its source host
    uint32_t index = 0;           //!< its index on that source
    uint64_t bytes = 0;           //!< file size
    Ptr<Ns2TcpSocket> sender;     //!< its connection's sender
    std::optional<Time> start;    //!< first data packet sent
    std::optional<Time> end;      //!< last byte acknowledged
    std::optional<Time> firstDrop; //!< first of its packets dropped at the bottleneck
    double wb = 0;                //!< cwnd then, packets
    bool ssLoss = false;          //!< that drop came in the first slow start
    std::optional<double> wd;     //!< cwnd when the first loss was detected, packets
    SequenceNumber32 recoverPoint; //!< highest byte sent then (+1)
    std::optional<uint32_t> ssthreshAfter; //!< ssthresh once that was all acknowledged
    SequenceNumber32 highestSent{0}; //!< highest byte sent so far (+1)
    uint64_t drops = 0;           //!< its data packets dropped at the bottleneck
    uint64_t dataPackets = 0;     //!< data packets sent, retransmissions included
};

/// Follows every transfer's sender, and the bottleneck's drops.
class Recorder
{
  public:
    Recorder(const Config& config, const NodeContainer& senders)
        : m_config(config)
    {
        for (uint32_t i = 0; i < senders.GetN(); ++i)
        {
            // Interface 1: the access link (0 is the loopback).
            m_sourceOf[senders.Get(i)->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal()] = i;
        }
    }

    void OnStart(uint32_t source, uint32_t index, uint64_t bytes, Ptr<Socket> socket)
    {
        const size_t id = m_transfers.size();
        Transfer& t = m_transfers.emplace_back();
        t.source = source;
        t.index = index;
        t.bytes = bytes;
        t.sender = DynamicCast<Ns2TcpSocket>(socket);
        NS_ABORT_MSG_UNLESS(t.sender, "barakat: the sources need the ns2 sender");
        Address local;
        socket->GetSockName(local);
        m_transferOf[{source, InetSocketAddress::ConvertFrom(local).GetPort()}] = id;
        socket->TraceConnectWithoutContext(
            "Tx",
            MakeCallback(+[](std::pair<Recorder*, size_t>* at,
                             Ptr<const Packet> p,
                             const TcpHeader& h,
                             Ptr<const TcpSocketBase>) { at->first->OnTx(at->second, p, h); })
                .Bind(Slot(id)));
        socket->TraceConnectWithoutContext(
            "Rx",
            MakeCallback(+[](std::pair<Recorder*, size_t>* at,
                             Ptr<const Packet>,
                             const TcpHeader& h,
                             Ptr<const TcpSocketBase>) { at->first->OnAck(at->second, h); })
                .Bind(Slot(id)));
        socket->TraceConnectWithoutContext(
            "CongestionWindowPackets",
            MakeCallback(+[](std::pair<Recorder*, size_t>* at, double before, double after) {
                at->first->OnCwnd(at->second, before, after);
            }).Bind(Slot(id)));
    }

    void OnEnd(uint32_t source, uint32_t index)
    {
        for (Transfer& t : m_transfers)
        {
            if (t.source == source && t.index == index)
            {
                t.end = Simulator::Now();
                break;
            }
        }
        if (m_config.scenario == "s1")
        {
            Simulator::Stop(); // its only transfer is over
        }
    }

    /// The bottleneck's queue dropped @p packet (PPP, IPv4 and TCP headers in front).
    void OnDrop(Ptr<const Packet> packet)
    {
        Ptr<Packet> copy = packet->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        TcpHeader tcp;
        copy->RemoveHeader(ppp);
        copy->RemoveHeader(ip);
        copy->RemoveHeader(tcp);
        const auto source = m_sourceOf.find(ip.GetSource());
        if (copy->GetSize() == 0 || source == m_sourceOf.end())
        {
            ++m_otherDrops; // a connection's SYN or FIN
            return;
        }
        // A transfer's last retransmissions may still be on their way when it ends: its
        // (source, port) is kept (a source's ports are not reused within a run).
        const auto owner = m_transferOf.find({source->second, tcp.GetSourcePort()});
        NS_ABORT_MSG_IF(owner == m_transferOf.end(), "barakat: a drop of no transfer");
        Transfer& t = m_transfers[owner->second];
        ++t.drops;
        if (!t.firstDrop)
        {
            t.firstDrop = Simulator::Now();
            t.wb = t.sender->GetCwndPackets();
            t.ssLoss = !t.wd && t.wb < m_config.ssthresh;
        }
    }

    const std::vector<Transfer>& GetTransfers() const
    {
        return m_transfers;
    }

    uint64_t GetOtherDrops() const
    {
        return m_otherDrops;
    }

    Json::Array TakeCwndRows()
    {
        return std::move(m_cwndRows);
    }

  private:
    /// @return a stable (this, id) pair for a trace callback's bound argument
    std::pair<Recorder*, size_t>* Slot(size_t id)
    {
        m_slots.push_back(std::make_unique<std::pair<Recorder*, size_t>>(this, id));
        return m_slots.back().get();
    }

    void OnTx(size_t id, Ptr<const Packet> packet, const TcpHeader& header)
    {
        if (packet->GetSize() == 0)
        {
            return; // SYN, FIN or a pure ACK
        }
        Transfer& t = m_transfers[id];
        if (!t.start)
        {
            t.start = Simulator::Now();
            Record(t, t.sender->GetCwndPackets());
        }
        ++t.dataPackets;
        t.highestSent = std::max(t.highestSent, header.GetSequenceNumber() + packet->GetSize());
    }

    void OnAck(size_t id, const TcpHeader& header)
    {
        Transfer& t = m_transfers[id];
        // The Rx trace fires before the ACK is processed; recovery leaves ssthresh as it is.
        if (t.wd && !t.ssthreshAfter && header.GetAckNumber() >= t.recoverPoint)
        {
            t.ssthreshAfter = t.sender->GetSsthreshPackets();
        }
    }

    void OnCwnd(size_t id, double before, double after)
    {
        Transfer& t = m_transfers[id];
        // Only a loss reaction lowers cwnd while data is outstanding (ssthresh is set first).
        if (!t.wd && after < before)
        {
            t.wd = before;
            t.recoverPoint = t.highestSent;
        }
        // A TracedValue calls back before it takes the new value: the socket still shows before.
        Record(t, after);
    }

    /// Appends a row of the cwnd table: @p cwnd and the sender's ssthresh now.
    void Record(const Transfer& t, double cwnd)
    {
        if (m_config.cwndTrace)
        {
            m_cwndRows.emplace_back(Json::Object{{"source", t.source},
                                                 {"transfer", t.index},
                                                 {"time", Simulator::Now().GetSeconds()},
                                                 {"cwnd", cwnd},
                                                 {"ssthresh", t.sender->GetSsthreshPackets()}});
        }
    }

    const Config& m_config;
    std::map<Ipv4Address, uint32_t> m_sourceOf;             //!< sender address -> source
    std::map<std::pair<uint32_t, uint16_t>, size_t> m_transferOf; //!< (source, port) -> transfer
    std::vector<Transfer> m_transfers;
    std::vector<std::unique_ptr<std::pair<Recorder*, size_t>>> m_slots;
    Json::Array m_cwndRows;
    uint64_t m_otherDrops = 0;
};

/// Sets the study's TCP on every host: ns-2's Reno sender with the slow-start policy.
void
InstallTcp(const Config& c, const NodeContainer& hosts)
{
    ns3::Config::SetDefault("ns3::Ns2TcpSocket::SlowStart", StringValue(c.slowStart));
    ns3::Config::SetDefault("ns3::Ns2TcpSocket::ByteCountingLimit", UintegerValue(c.bcLimit));
    ns3::Config::SetDefault("ns3::Ns2TcpSocket::DbcMaxD", DoubleValue(c.dbcMaxD));
    ns3::Config::SetDefault("ns3::Ns2TcpSocket::InitialRto", TimeValue(Seconds(c.initialRto)));
    TcpParameters tcp;
    tcp.model = TcpModel::NS2;
    tcp.flavor = TcpFlavor::RENO;
    tcp.mss = c.segmentSize;
    tcp.windowBytes = c.window * c.segmentSize;
    tcp.initialSsthreshBytes = c.ssthresh * c.segmentSize;
    tcp.tick = Seconds(c.tick);
    tcp.minRto = Seconds(c.minRto);
    TcpFlavorHelper(tcp).Install(hosts);
}

/// Listens at the receiver, ACKing every packet or every other one, and discards the data.
Ptr<Socket>
Listen(const Config& c, Ptr<Node> receiver)
{
    Ptr<Socket> listener = Socket::CreateSocket(receiver, TcpFlavorSocketFactory::GetTypeId());
    // An accepted connection is a copy of the listener: it keeps these.
    listener->SetAttribute("DelAckCount", UintegerValue(c.delayedAck ? 2 : 1));
    listener->SetAttribute("DelAckTimeout", TimeValue(Seconds(c.delAckTimeout)));
    listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), kPort));
    listener->Listen();
    listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeCallback(+[](Ptr<Socket> s, const Address&) {
                                    s->SetRecvCallback(MakeCallback(+[](Ptr<Socket> r) {
                                        while (r->Recv())
                                        {
                                        }
                                    }));
                                }));
    return listener;
}

/// @return @p value, null when absent
template <typename T>
Json
OrNull(const std::optional<T>& value)
{
    return value ? Json(*value) : Json();
}

} // namespace

Json
RunScenario(const Config& c)
{
    BottleneckPathHelper path;
    path.bottleneckRate = DataRate(static_cast<uint64_t>(c.rate));
    path.bottleneckDelay = Seconds(c.rtt / 2 - 2 * c.accessDelay);
    path.bufferPackets = c.buffer;
    path.accessRate = DataRate(static_cast<uint64_t>(c.accessRate));
    path.accessDelay = Seconds(c.accessDelay);
    path.Install(c.sources);
    NodeContainer hosts(path.GetSenders());
    hosts.Add(path.GetReceiver());
    InstallTcp(c, hosts);
    Ptr<Socket> listener = Listen(c, path.GetReceiver());

    Recorder recorder(c, path.GetSenders());
    DynamicCast<PointToPointNetDevice>(path.GetBottleneckDevice())
        ->GetQueue()
        ->TraceConnectWithoutContext("Drop", MakeCallback(&Recorder::OnDrop, &recorder));

    const bool s1 = c.scenario == "s1";
    Ptr<UniformRandomVariable> firstStart = CreateObject<UniformRandomVariable>();
    firstStart->SetAttribute("Max", DoubleValue(c.maxGap));
    firstStart->SetStream(0);
    for (uint32_t i = 0; i < c.sources; ++i)
    {
        Ptr<FileTransferSource> source = CreateObject<FileTransferSource>();
        source->SetAttribute("Remote", AddressValue(InetSocketAddress(path.GetReceiverAddress(),
                                                                      kPort)));
        source->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        if (s1)
        {
            source->SetAttribute("FileSize",
                                 StringValue("ns3::ConstantRandomVariable[Constant=" +
                                             std::to_string(uint64_t{c.fileSize} *
                                                            c.segmentSize) +
                                             "]"));
            source->SetAttribute("MaxTransfers", UintegerValue(1));
        }
        else
        {
            Ptr<UniformRandomVariable> size = CreateObject<UniformRandomVariable>();
            size->SetAttribute("Min", DoubleValue(c.minFile));
            size->SetAttribute("Max", DoubleValue(c.maxFile));
            Ptr<UniformRandomVariable> gap = CreateObject<UniformRandomVariable>();
            gap->SetAttribute("Max", DoubleValue(c.maxGap));
            source->SetAttribute("FileSize", PointerValue(size));
            source->SetAttribute("Gap", PointerValue(gap));
        }
        source->AssignStreams(1 + 2 * i);
        source->TraceConnectWithoutContext(
            "TransferStart",
            MakeCallback(+[](std::pair<Recorder*, uint32_t> at,
                             uint32_t index,
                             uint64_t bytes,
                             Ptr<Socket> socket) {
                at.first->OnStart(at.second, index, bytes, socket);
            }).Bind(std::make_pair(&recorder, i)));
        source->TraceConnectWithoutContext(
            "TransferEnd",
            MakeCallback(+[](std::pair<Recorder*, uint32_t> at, uint32_t index) {
                at.first->OnEnd(at.second, index);
            }).Bind(std::make_pair(&recorder, i)));
        path.GetSenders().Get(i)->AddApplication(source);
        source->SetStartTime(Seconds(s1 ? 0.0 : firstStart->GetValue()));
    }

    Simulator::Stop(Seconds(c.simTime));
    Simulator::Run();

    Json::Array rows;
    std::vector<double> throughput;
    std::vector<double> duration;
    std::vector<double> retxRatio;
    std::vector<double> ssLoss;
    std::vector<double> wb;
    std::vector<double> wd;
    std::vector<double> ssthreshAfter;
    std::vector<double> drops;
    std::vector<double> timeouts;
    std::vector<double> fastRetransmits;
    uint64_t unfinished = 0;
    for (const Transfer& t : recorder.GetTransfers())
    {
        const uint64_t unique = (t.bytes + c.segmentSize - 1) / c.segmentSize;
        const bool finished = t.start && t.end;
        Json seconds;
        Json kbps;
        const double ratio =
            t.dataPackets ? static_cast<double>(unique) / static_cast<double>(t.dataPackets) : 0;
        if (finished)
        {
            const double d = (*t.end - *t.start).GetSeconds();
            seconds = Json(d);
            kbps = Json(t.bytes * 8.0 / 1000.0 / d);
            duration.push_back(d);
            throughput.push_back(t.bytes * 8.0 / 1000.0 / d);
            retxRatio.push_back(ratio);
            ssLoss.push_back(t.ssLoss ? 1.0 : 0.0);
            if (t.firstDrop)
            {
                wb.push_back(t.wb);
            }
            if (t.wd)
            {
                wd.push_back(*t.wd);
            }
            if (t.ssthreshAfter)
            {
                ssthreshAfter.push_back(*t.ssthreshAfter);
            }
            drops.push_back(t.drops);
            timeouts.push_back(t.sender->GetTimeouts());
            fastRetransmits.push_back(t.sender->GetFastRetransmits());
        }
        else
        {
            ++unfinished;
        }
        rows.emplace_back(Json::Object{
            {"source", t.source},
            {"transfer", t.index},
            {"finished", finished},
            {"packets", unique},
            {"start", t.start ? Json(t.start->GetSeconds()) : Json()},
            {"end", t.end ? Json(t.end->GetSeconds()) : Json()},
            {"duration", seconds},
            {"throughput", kbps},
            {"ssLoss", t.ssLoss},
            {"firstDropTime", t.firstDrop ? Json(t.firstDrop->GetSeconds()) : Json()},
            {"wb", t.firstDrop ? Json(t.wb) : Json()},
            {"wd", OrNull(t.wd)},
            {"ssthreshAfter", OrNull(t.ssthreshAfter)},
            {"drops", t.drops},
            {"timeouts", t.sender->GetTimeouts()},
            {"fastRetransmits", t.sender->GetFastRetransmits()},
            {"uniquePackets", unique},
            {"dataPackets", t.dataPackets},
            {"retxRatio", t.dataPackets ? Json(ratio) : Json()},
        });
    }
    Json summary(Json::Object{
        {"bdp", BdpPackets(c)},
        {"transfers", static_cast<uint64_t>(duration.size())},
        {"unfinished", unfinished},
        {"throughput", MeanOrNull(throughput)},
        {"duration", MeanOrNull(duration)},
        {"retxRatio", MeanOrNull(retxRatio)},
        {"ssLoss", MeanOrNull(ssLoss)},
        {"wb", MeanOrNull(wb)},
        {"wd", MeanOrNull(wd)},
        {"ssthreshAfter", MeanOrNull(ssthreshAfter)},
        {"drops", MeanOrNull(drops)},
        {"timeouts", MeanOrNull(timeouts)},
        {"fastRetransmits", MeanOrNull(fastRetransmits)},
        {"otherDrops", recorder.GetOtherDrops()},
        {"events", Simulator::GetEventCount()},
    });
    Json result(Json::Object{{"summary", summary},
                             {"transfers", Json(std::move(rows))},
                             {"cwnd", Json(recorder.TakeCwndRows())}});
    listener->Close();
    Simulator::Destroy();
    return result;
}

satsweep::OutputSchema
Outputs()
{
    satsweep::OutputSchema o;
    o.AddSummary("bdp",
                 ValueType::FLOAT,
                 "packets",
                 "muT: the bottleneck rate x T in packets of segmentSize + headerSize bytes.");
    o.AddSummary("transfers", ValueType::INT, "", "Transfers finished within simTime.");
    o.AddSummary("unfinished",
                 ValueType::INT,
                 "",
                 "Transfers still running at simTime: left out of every mean below.");
    o.AddSummary("throughput",
                 ValueType::FLOAT,
                 "kbit/s",
                 "Mean over the finished transfers of file size / transfer time, the time "
                 "from the first data packet sent to the ACK of the last byte.");
    o.AddSummary("duration", ValueType::FLOAT, "s", "Mean transfer time.");
    o.AddSummary("retxRatio",
                 ValueType::FLOAT,
                 "",
                 "Mean over the finished transfers of unique data packets / data packets sent "
                 "(1: nothing sent twice).");
    o.SetSummaryBounds("retxRatio", 0, 1);
    o.AddSummary("ssLoss",
                 ValueType::FLOAT,
                 "",
                 "Fraction of the finished transfers whose first drop came in their first "
                 "slow start (cwnd < W_th, no loss detected yet).");
    o.SetSummaryBounds("ssLoss", 0, 1);
    o.AddSummary("wb",
                 ValueType::FLOAT,
                 "packets",
                 "W_B: cwnd when a transfer's first packet was dropped at the bottleneck, mean "
                 "over the finished transfers with a drop (null: none).");
    o.AddSummary("wd",
                 ValueType::FLOAT,
                 "packets",
                 "W_D: cwnd when a transfer first detected a loss (fast retransmit or "
                 "timeout), mean over those that did.");
    o.AddSummary("ssthreshAfter",
                 ValueType::FLOAT,
                 "packets",
                 "W'_th: ssthresh once everything sent before the first loss detection was "
                 "acknowledged, mean over those that got there.");
    o.AddSummary("drops", ValueType::FLOAT, "packets", "Mean data packets dropped per transfer.");
    o.AddSummary("timeouts", ValueType::FLOAT, "", "Mean retransmission timeouts per transfer.");
    o.AddSummary("fastRetransmits", ValueType::FLOAT, "", "Mean fast retransmits per transfer.");
    o.AddSummary("otherDrops",
                 ValueType::INT,
                 "packets",
                 "Packets without data (SYN, FIN) dropped at the bottleneck.");
    o.AddSummary("events", ValueType::INT, "events", "ns-3 events executed.");

    const std::string t = "transfers";
    o.AddColumn(t, "source", ValueType::INT, "", "Source host, from 0.");
    o.AddColumn(t, "transfer", ValueType::INT, "", "Transfer of that source, from 0.");
    o.AddColumn(t, "finished", ValueType::BOOL, "", "Its last byte was acknowledged in time.");
    o.AddColumn(t, "packets", ValueType::INT, "packets", "File size in packets (rounded up).");
    o.AddColumn(t, "start", ValueType::FLOAT, "s", "First data packet sent.");
    o.AddColumn(t, "end", ValueType::FLOAT, "s", "Last byte acknowledged.");
    o.AddColumn(t, "duration", ValueType::FLOAT, "s", "end - start.");
    o.AddColumn(t, "throughput", ValueType::FLOAT, "kbit/s", "File size / duration.");
    o.AddColumn(t, "ssLoss", ValueType::BOOL, "", "Its first drop came in its first slow start.");
    o.AddColumn(t, "firstDropTime", ValueType::FLOAT, "s", "Its first packet dropped.");
    o.AddColumn(t, "wb", ValueType::FLOAT, "packets", "W_B: cwnd then.");
    o.AddColumn(t, "wd", ValueType::FLOAT, "packets", "W_D: cwnd when a loss was first detected.");
    o.AddColumn(t,
                "ssthreshAfter",
                ValueType::INT,
                "packets",
                "W'_th: ssthresh once the data sent before that detection was acknowledged.");
    o.AddColumn(t, "drops", ValueType::INT, "packets", "Its data packets dropped.");
    o.AddColumn(t, "timeouts", ValueType::INT, "", "Retransmission timeouts.");
    o.AddColumn(t, "fastRetransmits", ValueType::INT, "", "Fast retransmits.");
    o.AddColumn(t, "uniquePackets", ValueType::INT, "packets", "Distinct data packets.");
    o.AddColumn(t, "dataPackets", ValueType::INT, "packets", "Data packets sent in all.");
    o.AddColumn(t, "retxRatio", ValueType::FLOAT, "", "uniquePackets / dataPackets.");

    const std::string w = "cwnd";
    o.AddColumn(w, "source", ValueType::INT, "", "Source host.");
    o.AddColumn(w, "transfer", ValueType::INT, "", "Transfer of that source.");
    o.AddColumn(w, "time", ValueType::FLOAT, "s", "When the window changed.");
    o.AddColumn(w, "cwnd", ValueType::FLOAT, "packets", "cwnd afterwards.");
    o.AddColumn(w, "ssthresh", ValueType::INT, "packets", "ssthresh afterwards.");
    return o;
}

} // namespace barakat
