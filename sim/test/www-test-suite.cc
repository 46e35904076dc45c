// Tests of the WWW load: truncated Poisson, SPECweb96 file sizes, server and client end to end.
#include "helper/www-helper.h"
#include "model/specweb-file-size.h"
#include "model/truncated-poisson-random-variable.h"
#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/pointer.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// Poisson(mean) restricted to [min, max] and renormalised, computed from e^-m m^k / k!.
std::vector<double>
TruncatedPoissonPmf(double mean, uint32_t min, uint32_t max)
{
    std::vector<double> pmf;
    double total = 0;
    for (uint32_t k = min; k <= max; ++k)
    {
        pmf.push_back(std::exp(-mean + k * std::log(mean) - std::lgamma(k + 1.0)));
        total += pmf.back();
    }
    for (double& p : pmf)
    {
        p /= total;
    }
    return pmf;
}

/// Five standard errors of a frequency estimated from @p n draws: a loose but real bound.
double
FrequencyTolerance(double p, uint32_t n)
{
    return 5 * std::sqrt(p * (1 - p) / n);
}

/// Two nodes joined by a fast point-to-point link, with IPv4.
struct TinyNetwork
{
    NodeContainer nodes;       //!< node 0 serves, node 1 is the client
    Ipv4Address serverAddress; //!< address of node 0
};

/// @return two nodes joined by a 100 Mbps, 1 ms link, node 0 at 10.1.1.1
TinyNetwork
BuildTinyNetwork()
{
    TinyNetwork net;
    net.nodes.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    link.SetChannelAttribute("Delay", StringValue("1ms"));
    NetDeviceContainer devices = link.Install(net.nodes);
    InternetStackHelper().Install(net.nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    net.serverAddress = addresses.Assign(devices).GetAddress(0);
    return net;
}

/// What one run of a client/server pair did.
struct PairRun
{
    Time phase;                         //!< client start phase
    std::vector<Time> pageTimes;        //!< page starts
    std::vector<uint32_t> pageRequests; //!< requests drawn for each page
    std::vector<Time> requestTimes;     //!< requests issued
    uint64_t requestsSent{0};           //!< client's request count
    uint64_t serverRequests{0};         //!< server's request count
    uint64_t tracedFileBytes{0};        //!< sum of the file sizes traced by the server
    uint64_t bytesRequested{0};         //!< server's S_i numerator
    uint64_t bytesQueued{0};            //!< bytes the server handed to TCP
    uint64_t bytesReceived{0};          //!< client's x_i numerator
};

/**
 * Runs a pair on the tiny network: the client issues pages from @p start until @p clientStop,
 * the simulation lasts until @p end so that every answer can arrive.
 * @param rngRun ns-3 RngRun of the run
 * @param start start of both applications
 * @param clientStop stop of the client
 * @param end end of the simulation
 * @param randomPhase the client's RandomStartPhase
 * @return what happened
 */
PairRun
RunPair(uint64_t rngRun, Time start, Time clientStop, Time end, bool randomPhase = true)
{
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(rngRun);
    TinyNetwork net = BuildTinyNetwork();
    WwwHelper www(TcpSocketFactory::GetTypeId(), 8080);
    www.SetClientAttribute("RandomStartPhase", BooleanValue(randomPhase));
    ApplicationContainer pair = www.Install(net.nodes.Get(0), net.nodes.Get(1), net.serverAddress);
    auto server = DynamicCast<WwwServer>(pair.Get(WwwHelper::kServer));
    auto client = DynamicCast<WwwClient>(pair.Get(WwwHelper::kClient));
    server->AssignStreams(100);
    client->AssignStreams(200);
    pair.Start(start);
    client->SetStopTime(clientStop);

    PairRun run;
    client->TraceConnectWithoutContext("PageStart", Callback<void, uint32_t>([&](uint32_t k) {
                                           run.pageTimes.push_back(Simulator::Now());
                                           run.pageRequests.push_back(k);
                                       }));
    client->TraceConnectWithoutContext("Request", Callback<void, uint32_t>([&](uint32_t) {
                                           run.requestTimes.push_back(Simulator::Now());
                                       }));
    server->TraceConnectWithoutContext("Request", Callback<void, uint32_t>([&](uint32_t bytes) {
                                           run.tracedFileBytes += bytes;
                                       }));
    Simulator::Stop(end);
    Simulator::Run();

    run.phase = client->GetStartPhase();
    run.requestsSent = client->GetRequestsSent();
    run.serverRequests = server->GetRequests();
    run.bytesRequested = server->GetBytesRequested();
    run.bytesQueued = server->GetBytesQueued();
    run.bytesReceived = client->GetBytesReceived();
    Simulator::Destroy();
    RngSeedManager::SetRun(oldRun);
    return run;
}

} // namespace

/// The truncated Poisson variable follows Poisson(5) conditioned on 1..9.
class TruncatedPoissonTestCase : public TestCase
{
  public:
    TruncatedPoissonTestCase()
        : TestCase("Truncated Poisson: range, frequencies and mean")
    {
    }

  private:
    void DoRun() override
    {
        const double mean = 5;
        const uint32_t min = 1;
        const uint32_t max = 9;
        const std::vector<double> pmf = TruncatedPoissonPmf(mean, min, max);
        double expected = 0;
        for (uint32_t k = min; k <= max; ++k)
        {
            const double p =
                TruncatedPoisson::Probability(k, mean, min, max, TruncatedPoisson::REDRAW);
            NS_TEST_EXPECT_MSG_EQ_TOL(p,
                                      pmf[k - min],
                                      1e-12,
                                      "P(" << k << ")");
            expected += k * pmf[k - min];
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(
            TruncatedPoisson::ExpectedValue(mean, min, max, TruncatedPoisson::REDRAW),
            expected,
            1e-12,
            "analytic mean");

        auto rv = CreateObject<TruncatedPoissonRandomVariable>();
        rv->SetAttribute("Mean", DoubleValue(mean));
        rv->SetAttribute("Min", UintegerValue(min));
        rv->SetAttribute("Max", UintegerValue(max));
        rv->SetStream(1);
        const uint32_t n = 100000;
        std::vector<uint32_t> counts(max + 1, 0);
        double sum = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t k = rv->GetInteger();
            NS_TEST_ASSERT_MSG_EQ((k >= min && k <= max), true, "value out of range: " << k);
            ++counts[k];
            sum += k;
        }
        for (uint32_t k = min; k <= max; ++k)
        {
            const double p = pmf[k - min];
            NS_TEST_EXPECT_MSG_EQ_TOL(double(counts[k]) / n,
                                      p,
                                      FrequencyTolerance(p, n),
                                      "frequency of " << k);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(sum / n, expected, 0.02, "sample mean");

        // Clamped: the mass below 1 on 1, above 9 on 9, Poisson(5) in between.
        std::vector<double> clamped;
        double below = 0;
        double clampedMean = 0;
        for (uint32_t k = 0; k <= max; ++k)
        {
            const double p = std::exp(-mean + k * std::log(mean) - std::lgamma(k + 1.0));
            if (k < min)
            {
                below += p;
                continue;
            }
            clamped.push_back(k == min ? below + p : p);
        }
        clamped.back() = 1 - std::accumulate(clamped.begin(), clamped.end() - 1, 0.0);
        for (uint32_t k = min; k <= max; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(
                TruncatedPoisson::Probability(k, mean, min, max, TruncatedPoisson::CLAMP),
                clamped[k - min],
                1e-12,
                "clamped P(" << k << ")");
            clampedMean += k * clamped[k - min];
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(clampedMean, 4.952722289, 1e-9, "clamped mean, by hand");
        NS_TEST_EXPECT_MSG_EQ_TOL(
            TruncatedPoisson::ExpectedValue(mean, min, max, TruncatedPoisson::CLAMP),
            clampedMean,
            1e-12,
            "clamped analytic mean");
        rv->SetAttribute("Bounds", EnumValue(TruncatedPoisson::CLAMP));
        std::fill(counts.begin(), counts.end(), 0);
        for (uint32_t i = 0; i < n; ++i)
        {
            ++counts[rv->GetInteger()];
        }
        for (uint32_t k = min; k <= max; ++k)
        {
            const double p = clamped[k - min];
            NS_TEST_EXPECT_MSG_EQ_TOL(double(counts[k]) / n,
                                      p,
                                      FrequencyTolerance(p, n),
                                      "clamped frequency of " << k);
        }
    }
};

/// SPECweb96 file sizes: the 45 sizes, class frequencies and mean.
class SpecwebFileSizeTestCase : public TestCase
{
  public:
    SpecwebFileSizeTestCase()
        : TestCase("SPECweb96 file sizes: allowed values, class frequencies, mean")
    {
    }

  private:
    void DoRun() override
    {
        const std::vector<double> classP{0.20, 0.28, 0.40, 0.112, 0.008};
        const std::vector<double> indexP = TruncatedPoissonPmf(5, 1, 9);

        // The 45 allowed sizes j x 10^(c-1) x 1024 B, to the nearest byte, and the mean.
        std::map<uint32_t, uint32_t> classOfSize;
        double mean = 0;
        for (uint32_t c = 0; c < classP.size(); ++c)
        {
            for (uint32_t j = 1; j <= 9; ++j)
            {
                const auto size =
                    static_cast<uint32_t>(std::llround(j * 1024 * std::pow(10.0, c - 1.0)));
                classOfSize[size] = c;
                mean += classP[c] * indexP[j - 1] * size;
            }
        }
        NS_TEST_ASSERT_MSG_EQ(classOfSize.size(), 45, "sizes of different classes collide");

        auto sizes = CreateObject<SpecwebFileSize>();
        NS_TEST_EXPECT_MSG_EQ(sizes->GetSize(0, 1), 102, "0.1 KB");
        NS_TEST_EXPECT_MSG_EQ(sizes->GetSize(0, 3), 307, "0.3 KB");
        NS_TEST_EXPECT_MSG_EQ(sizes->GetSize(2, 5), 51200, "50 KB");
        NS_TEST_EXPECT_MSG_EQ(sizes->GetSize(4, 9), 9216000, "9 MB");
        NS_TEST_EXPECT_MSG_EQ_TOL(sizes->GetMean(), mean, 1e-9 * mean, "analytic mean");
        // "About 120 KB", the study says of 5 x mean class size: truncating j to 1..9 lowers the
        // mean index to 4.85, the mean file to 114 KiB.
        NS_TEST_EXPECT_MSG_EQ_TOL(mean / 1024, 114, 1, "mean file in KiB");

        sizes->AssignStreams(7);
        const uint32_t n = 200000;
        std::vector<uint32_t> classCounts(classP.size(), 0);
        double sum = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            const uint32_t size = sizes->DrawSize();
            auto it = classOfSize.find(size);
            NS_TEST_ASSERT_MSG_EQ((it != classOfSize.end()), true, "size not allowed: " << size);
            ++classCounts[it->second];
            sum += size;
        }
        for (uint32_t c = 0; c < classP.size(); ++c)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(classCounts[c]) / n,
                                      classP[c],
                                      FrequencyTolerance(classP[c], n),
                                      "frequency of class " << c);
        }
        // The 9 MB class makes the standard error of the mean about 1%.
        NS_TEST_EXPECT_MSG_EQ_TOL(sum / n, mean, 0.03 * mean, "sample mean");

        // The attributes shape the distribution.
        auto decimal = CreateObject<SpecwebFileSize>();
        decimal->SetAttribute("KiloByte", UintegerValue(1000));
        NS_TEST_EXPECT_MSG_EQ(decimal->GetSize(0, 1), 100, "0.1 KB of 1000 B");
        NS_TEST_EXPECT_MSG_EQ(decimal->GetSize(3, 2), 200000, "200 KB of 1000 B");
        auto oneClass = CreateObject<SpecwebFileSize>();
        oneClass->SetAttribute("ClassProbabilities", StringValue("0,0,1,0,0"));
        for (uint32_t i = 0; i < 100; ++i)
        {
            const uint32_t size = oneClass->DrawSize();
            NS_TEST_ASSERT_MSG_EQ((size >= 10240 && size <= 92160), true, "not class 2: " << size);
        }
    }
};

/// The server counts requests in the byte stream however TCP cuts it, and drains its backlog.
class WwwServerFramingTestCase : public TestCase
{
  public:
    WwwServerFramingTestCase()
        : TestCase("Server: split and coalesced requests, send-buffer backlog")
    {
    }

  private:
    void DoRun() override
    {
        // A send buffer smaller than every file forces the backlog path.
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(4096));
        TinyNetwork net = BuildTinyNetwork();

        auto fileSize = CreateObject<SpecwebFileSize>();
        fileSize->SetAttribute("ClassProbabilities", StringValue("0,0,0,1,0"));
        auto server = CreateObject<WwwServer>();
        server->SetAttribute("Local", AddressValue(InetSocketAddress(Ipv4Address::GetAny(), 80)));
        server->SetAttribute("FileSize", PointerValue(fileSize));
        server->AssignStreams(11);
        net.nodes.Get(0)->AddApplication(server);
        server->TraceConnectWithoutContext("Request",
                                           MakeCallback(&WwwServerFramingTestCase::Request, this));

        // Connecting before the run would send on devices not yet initialised.
        Simulator::Schedule(Seconds(0.1), [&]() {
            m_socket = Socket::CreateSocket(net.nodes.Get(1), TcpSocketFactory::GetTypeId());
            m_socket->Bind();
            m_socket->Connect(InetSocketAddress(net.serverAddress, 80));
            m_socket->SetRecvCallback(MakeCallback(&WwwServerFramingTestCase::Read, this));
        });

        // 100 B: no request yet; +200 B: two, 44 B over; +340 B: five in all, none over.
        Simulator::Schedule(Seconds(1), &WwwServerFramingTestCase::Send, this, 100);
        Simulator::Schedule(Seconds(2), &WwwServerFramingTestCase::Send, this, 200);
        Simulator::Schedule(Seconds(3), &WwwServerFramingTestCase::Send, this, 340);
        std::vector<uint64_t> requestsSeen;
        for (double t : {1.5, 2.5, 3.5})
        {
            Simulator::Schedule(Seconds(t),
                                [&]() { requestsSeen.push_back(server->GetRequests()); });
        }
        Simulator::Schedule(Seconds(3.01), [&]() { m_backlogSeen = server->GetBacklog(); });
        Simulator::Stop(Seconds(60));
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(requestsSeen.size(), 3, "checks did not run");
        NS_TEST_EXPECT_MSG_EQ(requestsSeen[0], 0, "a partial request was served");
        NS_TEST_EXPECT_MSG_EQ(requestsSeen[1], 2, "coalesced requests miscounted");
        NS_TEST_EXPECT_MSG_EQ(requestsSeen[2], 5, "split requests miscounted");
        NS_TEST_EXPECT_MSG_EQ(server->GetRequests(), 5, "requests");
        NS_TEST_EXPECT_MSG_GT(m_backlogSeen, 0, "the send buffer never filled");
        NS_TEST_EXPECT_MSG_EQ(server->GetBytesRequested(), m_fileBytes, "bytes requested");
        NS_TEST_EXPECT_MSG_EQ(server->GetBytesQueued(), m_fileBytes, "backlog not drained");
        NS_TEST_EXPECT_MSG_EQ(server->GetBacklog(), 0, "backlog left");
        NS_TEST_EXPECT_MSG_EQ(m_received, m_fileBytes, "client did not get every byte");
        NS_TEST_EXPECT_MSG_NE(server->GetConnection(), nullptr, "no connection exposed");

        m_socket = nullptr;
        Simulator::Destroy();
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(131072));
    }

    /**
     * @param bytes bytes of request stream to send
     */
    void Send(uint32_t bytes)
    {
        m_socket->Send(Create<Packet>(bytes));
    }

    /**
     * @param socket the client socket
     */
    void Read(Ptr<Socket> socket)
    {
        while (Ptr<Packet> packet = socket->Recv())
        {
            m_received += packet->GetSize();
        }
    }

    /**
     * @param fileBytes size of the file served
     */
    void Request(uint32_t fileBytes)
    {
        m_fileBytes += fileBytes;
    }

    Ptr<Socket> m_socket;      //!< the hand-driven client
    uint64_t m_received{0};    //!< bytes the client read
    uint64_t m_fileBytes{0};   //!< sum of traced file sizes
    uint64_t m_backlogSeen{0}; //!< server backlog just after the last requests
};

/// Pages, requests and bytes of a client/server pair over a fast link.
class WwwEndToEndTestCase : public TestCase
{
  public:
    WwwEndToEndTestCase()
        : TestCase("Client and server end to end: pages, gaps, bytes")
    {
    }

  private:
    void DoRun() override
    {
        const Time start = Seconds(1);
        const Time clientStop = Seconds(101);
        const PairRun run = RunPair(1, start, clientStop, Seconds(150));

        // Pages: first after the phase, then every 10 s, while the client runs.
        NS_TEST_EXPECT_MSG_EQ((run.phase >= Time(0) && run.phase < Seconds(10)), true,
                              "phase out of [0, 10 s): " << run.phase);
        NS_TEST_ASSERT_MSG_EQ(run.pageTimes.size(), 10, "pages in 100 s");
        NS_TEST_EXPECT_MSG_EQ(run.pageTimes[0], start + run.phase, "first page");
        for (std::size_t p = 1; p < run.pageTimes.size(); ++p)
        {
            NS_TEST_EXPECT_MSG_EQ(run.pageTimes[p] - run.pageTimes[p - 1], Seconds(10),
                                  "page period");
        }

        // Requests: k in 1..9 per page, the first at the page start, then 100-500 ms apart.
        uint64_t expectedRequests = 0;
        Time shortestGap = Seconds(1);
        Time longestGap = Seconds(0);
        for (std::size_t p = 0; p < run.pageTimes.size(); ++p)
        {
            const uint32_t k = run.pageRequests[p];
            NS_TEST_EXPECT_MSG_EQ((k >= 1 && k <= 9), true, "requests per page: " << k);
            const Time pageEnd =
                p + 1 < run.pageTimes.size() ? run.pageTimes[p + 1] : clientStop;
            std::vector<Time> times;
            for (const Time& t : run.requestTimes)
            {
                if (t >= run.pageTimes[p] && t < pageEnd)
                {
                    times.push_back(t);
                }
            }
            // Only the last page can be cut short by the client's stop.
            const bool complete = p + 1 < run.pageTimes.size() ||
                                  run.pageTimes[p] + 8 * MilliSeconds(500) < clientStop;
            if (complete)
            {
                NS_TEST_EXPECT_MSG_EQ(times.size(), k, "requests of page " << p);
            }
            NS_TEST_ASSERT_MSG_GT(times.size(), 0, "page " << p << " sent nothing");
            NS_TEST_EXPECT_MSG_EQ(times[0], run.pageTimes[p], "first request of page " << p);
            for (std::size_t i = 1; i < times.size(); ++i)
            {
                const Time gap = times[i] - times[i - 1];
                NS_TEST_EXPECT_MSG_EQ((gap >= MilliSeconds(100) && gap <= MilliSeconds(500)),
                                      true,
                                      "gap " << gap.As(Time::MS) << " in page " << p);
                shortestGap = std::min(shortestGap, gap);
                longestGap = std::max(longestGap, gap);
            }
            expectedRequests += times.size();
        }
        // Tens of uniform gaps come close to both bounds.
        NS_TEST_EXPECT_MSG_LT(shortestGap, MilliSeconds(150), "gaps do not reach 100 ms");
        NS_TEST_EXPECT_MSG_GT(longestGap, MilliSeconds(450), "gaps do not reach 500 ms");
        NS_TEST_EXPECT_MSG_EQ(run.requestTimes.size(), expectedRequests, "requests off page");
        NS_TEST_EXPECT_MSG_EQ(run.requestsSent, expectedRequests, "client request count");

        // Bytes: every request reached the server, every file reached the client.
        NS_TEST_EXPECT_MSG_EQ(run.serverRequests, run.requestsSent, "requests lost");
        NS_TEST_EXPECT_MSG_GT(run.bytesRequested, 0, "nothing requested");
        NS_TEST_EXPECT_MSG_EQ(run.bytesRequested, run.tracedFileBytes, "S_i is the sum of files");
        NS_TEST_EXPECT_MSG_EQ(run.bytesQueued, run.bytesRequested, "server backlog left");
        NS_TEST_EXPECT_MSG_EQ(run.bytesReceived, run.bytesRequested, "client missed bytes");
    }
};

/// Without a phase the first page goes out during the TCP handshake and is still served.
class WwwNoPhaseTestCase : public TestCase
{
  public:
    WwwNoPhaseTestCase()
        : TestCase("Client without phase: first requests sent during the handshake")
    {
    }

  private:
    void DoRun() override
    {
        const PairRun run = RunPair(1, Seconds(1), Seconds(21), Seconds(60), false);
        NS_TEST_EXPECT_MSG_EQ(run.phase, Time(0), "phase");
        NS_TEST_ASSERT_MSG_EQ(run.pageTimes.size(), 2, "pages");
        NS_TEST_EXPECT_MSG_EQ(run.pageTimes[0], Seconds(1), "first page at the start");
        NS_TEST_EXPECT_MSG_EQ(run.requestTimes[0], Seconds(1), "first request at the start");
        NS_TEST_EXPECT_MSG_EQ(run.serverRequests, run.requestsSent, "requests lost");
        NS_TEST_EXPECT_MSG_EQ(run.bytesReceived, run.bytesRequested, "client missed bytes");
    }
};

/// Same RngRun, same run; another RngRun, another run.
class WwwDeterminismTestCase : public TestCase
{
  public:
    WwwDeterminismTestCase()
        : TestCase("Client and server are deterministic per RngRun")
    {
    }

  private:
    void DoRun() override
    {
        const PairRun a = RunPair(1, Seconds(0), Seconds(40), Seconds(40));
        const PairRun b = RunPair(1, Seconds(0), Seconds(40), Seconds(40));
        const PairRun c = RunPair(2, Seconds(0), Seconds(40), Seconds(40));

        NS_TEST_EXPECT_MSG_EQ(a.phase, b.phase, "phase");
        NS_TEST_EXPECT_MSG_EQ((a.requestTimes == b.requestTimes), true, "request times");
        NS_TEST_EXPECT_MSG_EQ(a.bytesRequested, b.bytesRequested, "bytes requested");
        NS_TEST_EXPECT_MSG_EQ(a.bytesReceived, b.bytesReceived, "bytes received");

        NS_TEST_EXPECT_MSG_NE(a.phase, c.phase, "phase of another run");
        NS_TEST_EXPECT_MSG_NE(a.bytesRequested, c.bytesRequested, "bytes of another run");
    }
};

/// Tests of the WWW load.
class WwwTestSuite : public TestSuite
{
  public:
    WwwTestSuite()
        : TestSuite("satnet-www", Type::UNIT)
    {
        AddTestCase(new TruncatedPoissonTestCase, Duration::QUICK);
        AddTestCase(new SpecwebFileSizeTestCase, Duration::QUICK);
        AddTestCase(new WwwServerFramingTestCase, Duration::QUICK);
        AddTestCase(new WwwEndToEndTestCase, Duration::QUICK);
        AddTestCase(new WwwNoPhaseTestCase, Duration::QUICK);
        AddTestCase(new WwwDeterminismTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static WwwTestSuite g_wwwTestSuite;
