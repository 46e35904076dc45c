/*
 * Tests of SABT's parts: the allocators on the paper's worked example and edge cases, the
 * Padhye et al. estimate on hand-computed values, the send-buffer guard and the manager, and
 * E3's parts: the document sizes and the small-file rule at a web server.
 */
#include "helper/parallel-paths-helper.h"
#include "helper/tcp-flavor-helper.h"
#include "model/buffer-allocation.h"
#include "model/file-transfer-source.h"
#include "model/http10-client.h"
#include "model/http10-server.h"
#include "model/lognormal-document-size.h"
#include "model/padhye-throughput.h"
#include "model/send-buffer-manager.h"
#include "model/tcp-flavor-socket-factory.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/test.h"

#include <numeric>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr double kTol = 1e-9; //!< exact hand computations in floating point

} // namespace

/// Sec. 2.1's worked example and the allocators' edge cases.
class AllocationTestCase : public TestCase
{
  public:
    AllocationTestCase()
        : TestCase("EQ, ABT, SABT and fixed allocation: the worked example and edge cases")
    {
    }

  private:
    /// Checks @p got against @p want element by element.
    void ExpectShares(const std::vector<double>& got,
                      const std::vector<double>& want,
                      const std::string& what)
    {
        NS_TEST_ASSERT_MSG_EQ(got.size(), want.size(), what);
        for (size_t i = 0; i < got.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(got[i], want[i], 1e-6 * std::max(1.0, want[i]),
                                      what << ", share " << i);
        }
    }

    void DoRun() override
    {
        // Demands 20 / 200 / 800 KB, pool 300 KB: ABT 20/140/140, SABT 20/116/164.
        ExpectShares(MaxMinShares(300, {20, 200, 800}), {20, 140, 140}, "ABT example");
        ExpectShares(ProportionalShares(300, {20, 200, 800}), {20, 116, 164},
                     "SABT example");
        // One pushed above its demand by the proportional excess is capped and hands on the
        // surplus: share 100, 10 keeps 10, the excess 90 gives 105 x 90/1105 = 8.55 to the
        // second (108.55 > 105: capped, 3.55 on) and the rest to the third: 185.
        ExpectShares(ProportionalShares(300, {10, 105, 1000}), {10, 105, 185},
                     "SABT cascade");
        // All demands below the share: each its own, the rest unassigned or spread.
        ExpectShares(ProportionalShares(300, {20, 30, 50}), {20, 30, 50}, "SABT fits");
        ExpectShares(MaxMinShares(300, {20, 30, 50}), {20, 30, 50}, "ABT fits");
        ExpectShares(ProportionalShares(300, {20, 30, 50}, Leftover::PROPORTIONAL),
                     {60, 90, 150}, "SABT fits, leftover spread");
        ExpectShares(MaxMinShares(300, {20, 30, 50}, Leftover::PROPORTIONAL),
                     {60, 90, 150}, "ABT fits, leftover spread");
        // One connection: its demand, at most the pool.
        ExpectShares(ProportionalShares(300, {800}), {300}, "SABT one, above");
        ExpectShares(ProportionalShares(300, {80}), {80}, "SABT one, below");
        ExpectShares(MaxMinShares(300, {800}), {300}, "ABT one");
        // A demand exactly at the equal share keeps it (b_i <= s).
        ExpectShares(ProportionalShares(300, {100, 400, 400}), {100, 100, 100},
                     "SABT at the share");
        ExpectShares(ProportionalShares(300, {}), {}, "SABT none");
        // Fixed: 64 KB each lets four into 256 KB; 16 KB lets all six.
        ExpectShares(FixedShares(256, 64, 6), {64, 64, 64, 64, 0, 0}, "fixed 64");
        ExpectShares(FixedShares(256, 16, 6), {16, 16, 16, 16, 16, 16}, "fixed 16");
        // The pool is handed out whole whenever the demands exceed it.
        const std::vector<double> demands{3, 70, 7.5, 260, 41, 19};
        const std::vector<double> shares = ProportionalShares(120, demands);
        NS_TEST_EXPECT_MSG_EQ_TOL(std::accumulate(shares.begin(), shares.end(), 0.0),
                                  120.0,
                                  kTol,
                                  "SABT hands out the pool");
        for (size_t i = 0; i < demands.size(); ++i)
        {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(shares[i], demands[i] + kTol, "above demand " << i);
        }
    }
};

/// PadhyeThroughput against values worked by hand.
class PadhyeTestCase : public TestCase
{
  public:
    PadhyeTestCase()
        : TestCase("Padhye et al.'s throughput on hand-computed values")
    {
    }

  private:
    void DoRun() override
    {
        // p = 0.1, b = 1: E[W] = 1 + sqrt(8 x 0.9 / 0.3 + 1) = 6 exactly;
        // Q(6) = 0.271 (1 + 0.729 x 0.271) / (1 - 0.9^6) = 0.324538489 / 0.468559 = 0.69263100;
        // f = 1.124992; rho = (9 + 6 + Q/0.9) / (0.05 (3 + 1) + Q x 1 x f / 0.9)
        //   = 15.76959 / 1.0657861 = 14.796254 packets/s (rtt 50 ms, rto 1 s).
        NS_TEST_EXPECT_MSG_EQ_TOL(PadhyeMeanWindow(0.1), 6.0, kTol, "E[W] at p = 0.1");
        NS_TEST_EXPECT_MSG_EQ_TOL(PadhyeThroughput(0.1, 0.05, 1.0), 14.796254, 1e-5, "rho");
        // b = 2, p = 0.02: a = 2/3, E[W] = 2/3 + sqrt(8 x 0.98 / 0.12 + 4/9) = 8.7770167.
        NS_TEST_EXPECT_MSG_EQ_TOL(PadhyeMeanWindow(0.02, 2), 8.7770167, 1e-6, "E[W], b = 2");
        // Rare losses: timeouts vanish and rho tends to E[W] / (rtt (E[W]/2 + 1)) x ... the
        // square-root law: rho x rtt x sqrt(2p/3) -> 1 as p -> 0.
        const double p = 1e-7;
        NS_TEST_EXPECT_MSG_EQ_TOL(PadhyeThroughput(p, 0.2, 1.0) * 0.2 * std::sqrt(2 * p / 3),
                                  1.0,
                                  1e-3,
                                  "square-root law");
        // More loss, less throughput; longer RTO, less throughput.
        NS_TEST_EXPECT_MSG_GT(PadhyeThroughput(0.01, 0.2, 1),
                              PadhyeThroughput(0.02, 0.2, 1),
                              "falls with p");
        NS_TEST_EXPECT_MSG_GT(PadhyeThroughput(0.05, 0.2, 1),
                              PadhyeThroughput(0.05, 0.2, 3),
                              "falls with the RTO");
    }
};

/// A bulk transfer over one 1.5 Mbit/s path, its socket and a manager.
class Transfer
{
  public:
    /**
     * @param fileBytes the file (0: bulk)
     * @param pool the manager's pool, bytes
     * @param smallFileLimit the manager's small-file limit, bytes
     * @param algorithm the manager's algorithm
     */
    Transfer(uint64_t fileBytes,
             uint64_t pool,
             uint64_t smallFileLimit,
             const std::string& algorithm = "eq")
    {
        m_net.Install({ParallelPathsHelper::Path{}});
        NodeContainer hosts(m_net.GetSender());
        hosts.Add(m_net.GetReceivers());
        TcpParameters tcp;
        tcp.model = TcpModel::NS2;
        tcp.flavor = TcpFlavor::RENO;
        tcp.mss = 1000;
        tcp.windowBytes = 1U << 24;
        tcp.initialSsthreshBytes = 1U << 24;
        TcpFlavorHelper(tcp).Install(hosts);
        m_listener = Socket::CreateSocket(m_net.GetReceivers().Get(0),
                                          TcpFlavorSocketFactory::GetTypeId());
        m_listener->SetAttribute("DelAckCount", UintegerValue(1));
        m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
        m_listener->Listen();
        manager = CreateObject<SendBufferManager>();
        manager->SetAttribute("Algorithm", StringValue(algorithm));
        manager->SetAttribute("Pool", UintegerValue(pool));
        manager->SetAttribute("SmallFileLimit", UintegerValue(smallFileLimit));
        m_source = CreateObject<FileTransferSource>();
        m_source->SetAttribute("Remote",
                               AddressValue(InetSocketAddress(m_net.GetReceiverAddress(0), 9)));
        m_source->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        m_source->SetAttribute("FileSize",
                               StringValue("ns3::ConstantRandomVariable[Constant=" +
                                           std::to_string(fileBytes) + "]"));
        m_source->SetAttribute("MaxTransfers", UintegerValue(1));
        m_source->TraceConnectWithoutContext(
            "TransferStart",
            MakeCallback(+[](Transfer* t, uint32_t, uint64_t bytes, Ptr<Socket> s) {
                t->socket = DynamicCast<Ns2TcpSocket>(s);
                t->manager->Add(t->socket, bytes, t->baseRtt);
            }).Bind(this));
        m_source->TraceConnectWithoutContext(
            "TransferEnd",
            MakeCallback(+[](Transfer* t, uint32_t) { t->end = Simulator::Now(); }).Bind(this));
        m_net.GetSender()->AddApplication(m_source);
    }

    Ptr<SendBufferManager> manager; //!< the pool
    Ptr<Ns2TcpSocket> socket;       //!< the sender, once started
    Time end;                       //!< the file's last ACK
    Time baseRtt = MilliSeconds(204); //!< what Add() is told of the path (1 + 100 + 1 ms each way)

  private:
    ParallelPathsHelper m_net;
    Ptr<Socket> m_listener;
    Ptr<FileTransferSource> m_source;
};

/**
 * ns-3's TcpTxBuffer::Available() wraps when the buffer shrinks below what it holds; the guard
 * of TcpFlavorSocket makes the room 0 and refuses data until the ACKs free room, and the
 * occupancy never grows past the old size.
 */
class ShrinkGuardTestCase : public TestCase
{
  public:
    ShrinkGuardTestCase()
        : TestCase("a send buffer shrunk below its occupancy takes no data until it drains")
    {
    }

  private:
    void DoRun() override
    {
        Transfer t(0, 64000, 0);
        Simulator::Schedule(Seconds(3), [this, &t]() {
            NS_TEST_ASSERT_MSG_GT(t.socket->GetTxBuffer()->Size(), 30000u, "a full buffer");
            t.socket->SetSendBuffer(10000);
            NS_TEST_EXPECT_MSG_EQ(t.socket->GetTxAvailable(), 0u, "no room, not ~4e9");
            NS_TEST_EXPECT_MSG_EQ(t.socket->Send(Create<Packet>(1000), 0), -1, "refused");
        });
        uint32_t most = 0;
        for (int ms = 3001; ms < 6000; ms += 10)
        {
            Simulator::Schedule(MilliSeconds(ms), [&t, &most]() {
                most = std::max(most, t.socket->GetTxBuffer()->Size());
            });
        }
        Simulator::Schedule(Seconds(6), [this, &t]() {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t.socket->GetTxBuffer()->Size(), 10000u, "drained");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(t.socket->GetUnacknowledgedBytes(), 10000u, "window");
        });
        Simulator::Stop(Seconds(6));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_LT_OR_EQ(most, 64000u, "never above the old size");
        Simulator::Destroy();
    }
};

/**
 * Sec. 2.2.2: a 6000-byte file (below 8 KB) gets an initial window of 6 segments and a buffer
 * of 6000 bytes: it is acknowledged one round trip after the handshake (2 x 204 ms + 6
 * packets at 1.5 Mbit/s); without the rule slow start takes 1 + 2 + 3 segments, two more
 * round trips.
 */
class SmallFileTestCase : public TestCase
{
  public:
    SmallFileTestCase()
        : TestCase("a file below 8 KB is sent in one round trip")
    {
    }

  private:
    void DoRun() override
    {
        const double rule = Duration(8192);
        const double none = Duration(0);
        // Two base RTTs (2 x 204 ms) and a little transmission: under 0.5 s; without: over 0.8.
        NS_TEST_EXPECT_MSG_GT(rule, 0.408, "at least the handshake and one round trip");
        NS_TEST_EXPECT_MSG_LT(rule, 0.5, "one round trip of data");
        NS_TEST_EXPECT_MSG_GT(none, 0.8, "slow start: three round trips of data");
    }

    /// @return the 6000-byte file's time from start to its last ACK, s
    double Duration(uint64_t smallFileLimit)
    {
        Transfer t(6000, 350000, smallFileLimit);
        Simulator::Stop(Seconds(10));
        Simulator::Run();
        if (smallFileLimit > 0)
        {
            UintegerValue initialCwnd;
            t.socket->GetAttribute("InitialCwnd", initialCwnd);
            NS_TEST_EXPECT_MSG_EQ(initialCwnd.Get(), 6u, "initial window = the file");
            NS_TEST_EXPECT_MSG_EQ(t.manager->GetConnections()[0].assigned, 6000, "buffer");
            NS_TEST_EXPECT_MSG_EQ(t.manager->GetConnections()[0].smallFile, true, "small");
        }
        const double d = t.end.GetSeconds();
        Simulator::Destroy();
        return d;
    }
};

/**
 * SABT's demand without an estimate: a connection without an RTT sample asks for the equal
 * share, one that has lost nothing yet for the whole pool. One bulk connection with a pool of
 * 20 packets, below the path's BDP: it never overflows the router.
 */
class SabtDemandTestCase : public TestCase
{
  public:
    SabtDemandTestCase()
        : TestCase("sabt: the equal share before an RTT sample, the pool before a loss")
    {
    }

  private:
    void DoRun() override
    {
        Transfer t(0, 20000, 0, "sabt");
        t.manager->TraceConnectWithoutContext(
            "Reassigned",
            MakeCallback(+[](Transfer* t, std::vector<std::pair<double, double>>* seen) {
                if (!t->manager->GetConnections().empty())
                {
                    const auto& c = t->manager->GetConnections()[0];
                    seen->emplace_back(c.demand.value_or(-1), c.assigned);
                }
            }).Bind(&t, &m_seen));
        Simulator::ScheduleNow(&SendBufferManager::Start, t.manager);
        Simulator::Stop(Seconds(30.5));
        Simulator::Run();
        // The connection opens at 0 s, after the first reassignment; from 1 s on, first without
        // an RTT sample (the equal share of one: the pool), then without a loss (the pool).
        NS_TEST_ASSERT_MSG_EQ(m_seen.size(), 30u, "a reassignment a second");
        for (const auto& [demand, assigned] : m_seen)
        {
            NS_TEST_EXPECT_MSG_EQ(demand, 20000, "the pool: no estimate, or no loss yet");
            NS_TEST_EXPECT_MSG_EQ(assigned, 20000, "all of it, whole segments");
        }
        NS_TEST_EXPECT_MSG_EQ(t.socket->GetFastRetransmits() + t.socket->GetTimeouts(),
                              0u,
                              "20 packets never overflow the path (BDP 38 + 50 queued)");
        NS_TEST_EXPECT_MSG_GT(t.socket->GetRttSamples(), 0u, "it has an RTT estimate");
        Simulator::Destroy();
    }

    std::vector<std::pair<double, double>> m_seen; //!< (demand, assigned) at each reassignment
};

/**
 * SABT's estimate with each RTT (SabtRtt) and with a loss window: one bulk connection whose
 * pool (350 packets) overflows the path's 50-packet queue, so that it loses and its queue
 * inflates srtt above the smallest sample. At every reassignment the demand is rho x RTT of
 * the RTT chosen, rho from that RTT, the loss rate the manager reports and the RTO; the loss
 * rate is that of the whole connection, or of the last 10 s (counted here from the socket).
 */
class SabtEstimateTestCase : public TestCase
{
  public:
    SabtEstimateTestCase()
        : TestCase("sabt: rho x RTT with the smoothed, minimum or base RTT; p over a window")
    {
    }

  private:
    /// What one reassignment showed.
    struct Seen
    {
        double at, demand, lossRate, srtt, minRtt, rto;
        uint64_t sent, losses;
    };

    void DoRun() override
    {
        const std::vector<Seen> smoothed = Run("smoothed", Time(0));
        const std::vector<Seen> minimum = Run("minimum", Time(0));
        const std::vector<Seen> base = Run("base", Time(0));
        bool inflated = false;
        for (const Seen& s : smoothed)
        {
            Check(s, s.srtt, "smoothed");
            inflated = inflated || s.srtt > s.minRtt + 0.05;
        }
        NS_TEST_EXPECT_MSG_EQ(inflated, true, "the queue inflates srtt: the RTTs differ");
        for (const Seen& s : minimum)
        {
            Check(s, s.minRtt, "minimum");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(s.minRtt, s.srtt + 1e-9, "the smallest sample");
        }
        for (const Seen& s : base)
        {
            Check(s, 0.204, "base");
        }

        const std::vector<Seen> windowed = Run("smoothed", Seconds(10));
        bool differs = false;
        for (const Seen& s : windowed)
        {
            // the counters of the reassignment 10 s before (reassignments are 1 s apart from 0 s;
            // the connection starts at 0 s with zero counters)
            const Seen* before = nullptr;
            for (const Seen& b : windowed)
            {
                if (b.at >= s.at - 10 - 1e-9 && !before)
                {
                    before = &b;
                }
            }
            const bool full = s.at - 10 > 1e-9;
            const uint64_t sent = s.sent - (full ? before->sent : 0);
            const uint64_t losses = s.losses - (full ? before->losses : 0);
            if (sent > 0)
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(s.lossRate,
                                          static_cast<double>(losses) / sent,
                                          1e-12,
                                          "p of the last 10 s at " << s.at << " s");
            }
            const double cumulative = s.sent ? static_cast<double>(s.losses) / s.sent : 0;
            differs = differs || std::abs(s.lossRate - cumulative) > 1e-6;
        }
        NS_TEST_EXPECT_MSG_EQ(differs, true, "the window's p is not the cumulative one");
    }

    /// Checks one reassignment's demand against rho x @p rtt.
    void Check(const Seen& s, double rtt, const std::string& name)
    {
        if (s.lossRate <= 0 || s.srtt <= 0)
        {
            return; // no estimate yet, or nothing lost: the equal share or the pool
        }
        const double expected = PadhyeThroughput(s.lossRate, rtt, s.rto) * rtt * 1000;
        NS_TEST_EXPECT_MSG_EQ_TOL(s.demand, expected, 1e-6 * expected, name << " at " << s.at);
    }

    /// @return every reassignment of a 30 s transfer with @p rtt and @p window
    std::vector<Seen> Run(const std::string& rtt, Time window)
    {
        Transfer t(0, 350000, 0, "sabt");
        t.manager->SetAttribute("SabtRtt", StringValue(rtt));
        t.manager->SetAttribute("LossWindow", TimeValue(window));
        std::vector<Seen> seen;
        t.manager->TraceConnectWithoutContext(
            "Reassigned",
            MakeCallback(+[](Transfer* t, std::vector<Seen>* seen) {
                if (t->manager->GetConnections().empty())
                {
                    return;
                }
                const auto& c = t->manager->GetConnections()[0];
                const Ptr<Ns2TcpSocket>& s = t->socket;
                seen->push_back({Simulator::Now().GetSeconds(),
                                 c.demand.value_or(-1),
                                 c.lossRate,
                                 s->GetSmoothedRtt().GetSeconds(),
                                 s->GetMinRtt().GetSeconds(),
                                 s->GetRtoWithoutBackoff().GetSeconds(),
                                 s->GetDataSegmentsSent(),
                                 s->GetFastRetransmits() + s->GetTimeouts()});
            }).Bind(&t, &seen));
        Simulator::ScheduleNow(&SendBufferManager::Start, t.manager);
        Simulator::Stop(Seconds(30.5));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_GT(t.socket->GetFastRetransmits() + t.socket->GetTimeouts(),
                              0u,
                              "350 packets overflow the path (BDP 38 + 50 queued)");
        Simulator::Destroy();
        return seen;
    }
};

/**
 * E3's document sizes: mu and sigma from the mean 10 KB and the 80th percentile 8 KB by hand
 * (z = 0.8416212: sigma = z + sqrt(z^2 + 2 ln 1.25) = 1.9161506, mu = ln 8192 - z sigma =
 * 7.3982403), the truncated mean and CDF at 1 MiB, and 200,000 draws against them (the sizes'
 * standard deviation is 35 KB: the mean's standard error 79 bytes).
 */
class DocumentSizeTestCase : public TestCase
{
  public:
    DocumentSizeTestCase()
        : TestCase("E3's document sizes: four in five below 8 KB, mean 10 KB before truncation")
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(1);
        RngSeedManager::SetRun(1);
        Ptr<LognormalDocumentSize> sizes = CreateObject<LognormalDocumentSize>();
        sizes->SetStream(1);
        NS_TEST_EXPECT_MSG_EQ_TOL(sizes->GetSigma(), 1.9161506, 1e-6, "sigma");
        NS_TEST_EXPECT_MSG_EQ_TOL(sizes->GetMu(), 7.3982403, 1e-6, "mu");
        NS_TEST_EXPECT_MSG_EQ_TOL(sizes->GetTruncatedMean(), 9501.44, 0.01, "mean below 1 MiB");
        NS_TEST_EXPECT_MSG_EQ_TOL(sizes->GetTruncatedCdf(8192), 0.800297, 1e-6, "P(<= 8 KB)");
        const int n = 200000;
        double sum = 0;
        int below = 0;
        uint32_t largest = 0;
        uint32_t smallest = UINT32_MAX;
        for (int i = 0; i < n; ++i)
        {
            const uint32_t size = sizes->GetInteger();
            sum += size;
            below += size < 8192 ? 1 : 0;
            largest = std::max(largest, size);
            smallest = std::min(smallest, size);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(sum / n, 9501.44, 400, "the draws' mean (5 standard errors)");
        NS_TEST_EXPECT_MSG_EQ_TOL(below / double(n), 0.8003, 0.005, "four in five below 8 KB");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(largest, 1u << 20, "truncated at 1 MiB");
        NS_TEST_EXPECT_MSG_GT(largest, 500000u, "the tail reaches toward it");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(smallest, 1u, "at least a byte");
    }
};

/// A web server and one client over one 1.5 Mbit/s / 100 ms path, the server's pool managed.
class WebTransfer
{
  public:
    /**
     * @param documentBytes every document's size
     * @param smallFileLimit the manager's small-file limit, bytes
     * @param requests the client's requests, back to back
     */
    WebTransfer(uint64_t documentBytes, uint64_t smallFileLimit, uint32_t requests)
    {
        m_net.Install({ParallelPathsHelper::Path{}});
        NodeContainer hosts(m_net.GetSender());
        hosts.Add(m_net.GetReceivers());
        TcpParameters tcp;
        tcp.model = TcpModel::NS2;
        tcp.flavor = TcpFlavor::RENO;
        tcp.mss = 1000;
        tcp.windowBytes = 1U << 24;
        tcp.initialSsthreshBytes = 1U << 24;
        TcpFlavorHelper(tcp).Install(hosts);
        manager = CreateObject<SendBufferManager>();
        manager->SetAttribute("Algorithm", StringValue("sabt"));
        manager->SetAttribute("Pool", UintegerValue(262144));
        manager->SetAttribute("SmallFileLimit", UintegerValue(smallFileLimit));
        m_server = CreateObject<Http10Server>();
        m_server->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        m_server->SetAttribute("DocumentSize",
                               StringValue("ns3::ConstantRandomVariable[Constant=" +
                                           std::to_string(documentBytes) + "]"));
        m_server->TraceConnectWithoutContext(
            "DocumentStart",
            MakeCallback(+[](WebTransfer* t, uint32_t, uint64_t bytes, Ptr<Socket> s) {
                t->ids.push_back(t->manager->Add(DynamicCast<Ns2TcpSocket>(s), bytes));
            }).Bind(this));
        m_server->TraceConnectWithoutContext(
            "DocumentEnd",
            MakeCallback(+[](WebTransfer* t, uint32_t document) {
                t->manager->Remove(t->ids[document]);
            }).Bind(this));
        m_net.GetSender()->AddApplication(m_server);
        m_client = CreateObject<Http10Client>();
        m_client->SetAttribute("Remote", AddressValue(InetSocketAddress(ServerAddress(), 80)));
        m_client->SetAttribute("Protocol", TypeIdValue(TcpFlavorSocketFactory::GetTypeId()));
        m_client->SetAttribute("MaxRequests", UintegerValue(requests));
        m_client->TraceConnectWithoutContext(
            "Response",
            MakeCallback(+[](WebTransfer* t, uint32_t, uint64_t bytes, Time response) {
                t->responses.emplace_back(bytes, response.GetSeconds());
            }).Bind(this));
        m_net.GetReceivers().Get(0)->AddApplication(m_client);
    }

    Ptr<SendBufferManager> manager;                      //!< the server's pool
    std::vector<uint32_t> ids;                           //!< document -> its index there
    std::vector<std::pair<uint64_t, double>> responses;  //!< (bytes, response time, s)

  private:
    /// @return the server host's address (its one interface besides the loopback)
    Ipv4Address ServerAddress() const
    {
        return m_net.GetSender()->GetObject<Ipv4>()->GetAddress(1, 0).GetLocal();
    }

    ParallelPathsHelper m_net;
    Ptr<Http10Server> m_server;
    Ptr<Http10Client> m_client;
};

/**
 * Sec. 2.2.2 at a web server: a 6000-byte document is sized only when the server has read the
 * request, after the handshake; with the rule its 6 segments still go out at once. A response
 * is then two round trips (2 x 204 ms: the handshake, then the request and the document) and
 * the transmissions; without the rule slow start sends 1 + 2 + 3 segments, two round trips
 * more. Two requests back to back, each on its own connection, both given back to the pool.
 */
class WebSmallFileTestCase : public TestCase
{
  public:
    WebSmallFileTestCase()
        : TestCase("e3: a document below 8 KB is answered in one round trip after the request")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> rule = ResponseTimes(8192);
        const std::vector<double> none = ResponseTimes(0);
        NS_TEST_ASSERT_MSG_EQ(rule.size(), 2u, "both requests answered, with the rule");
        NS_TEST_ASSERT_MSG_EQ(none.size(), 2u, "both requests answered, without");
        for (size_t i = 0; i < 2; ++i)
        {
            NS_TEST_EXPECT_MSG_GT(rule[i], 0.408, "two round trips at least");
            NS_TEST_EXPECT_MSG_LT(rule[i], 0.5, "one round trip of data");
            NS_TEST_EXPECT_MSG_GT(none[i], 0.8, "slow start: three round trips of data");
        }
    }

    /// @return the two responses' times, s, with the small-file limit @p smallFileLimit
    std::vector<double> ResponseTimes(uint64_t smallFileLimit)
    {
        WebTransfer t(6000, smallFileLimit, 2);
        Simulator::Stop(Seconds(10));
        Simulator::Run();
        std::vector<double> times;
        for (const auto& [bytes, time] : t.responses)
        {
            NS_TEST_EXPECT_MSG_EQ(bytes, 6000u, "the whole document");
            times.push_back(time);
        }
        for (const SendBufferManager::Connection& c : t.manager->GetConnections())
        {
            NS_TEST_EXPECT_MSG_EQ(c.smallFile, (smallFileLimit > 6000), "the rule applied");
            NS_TEST_EXPECT_MSG_EQ(c.active, false, "given back to the pool");
        }
        NS_TEST_EXPECT_MSG_EQ(t.manager->GetConnections().size(), 2u, "a connection a request");
        Simulator::Destroy();
        return times;
    }
};

/// The suite.
class SabtTestSuite : public TestSuite
{
  public:
    SabtTestSuite()
        : TestSuite("satsweep-sabt", Type::UNIT)
    {
        AddTestCase(new AllocationTestCase, Duration::QUICK);
        AddTestCase(new PadhyeTestCase, Duration::QUICK);
        AddTestCase(new ShrinkGuardTestCase, Duration::QUICK);
        AddTestCase(new SmallFileTestCase, Duration::QUICK);
        AddTestCase(new SabtDemandTestCase, Duration::QUICK);
        AddTestCase(new SabtEstimateTestCase, Duration::QUICK);
        AddTestCase(new DocumentSizeTestCase, Duration::QUICK);
        AddTestCase(new WebSmallFileTestCase, Duration::QUICK);
    }
};

/// Registers the suite.
static SabtTestSuite g_sabtTestSuite;
