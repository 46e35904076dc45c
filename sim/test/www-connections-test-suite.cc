/*
 * Tests of the WWW pair's Connections (satnet's --connections): one connection per run, a new
 * one per page, or one reset to a new connection's state when a page starts on it idle.
 *
 * One client/server pair with the ns2 TCP sender over a fast link: pages of three 10-90 KB
 * documents, 10 s apart, each page's answers all in well before the next page, so the
 * connection is idle when a page starts (ns-2's idle restart off: it would cut an idle
 * connection's cwnd to 1 in every mode). What each page's first answer starts with is read off
 * the server's socket when it reads the page's first request (its Request trace fires after
 * the reset and before the file is queued).
 */
#include "helper/tcp-flavor-helper.h"
#include "helper/www-helper.h"
#include "model/ns2-tcp-socket.h"
#include "model/specweb-file-size.h"
#include "model/tcp-flavor-socket-factory.h"
#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/boolean.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <set>
#include <vector>

using namespace ns3;

namespace
{

const Time START = Seconds(1);
const uint32_t REQUESTS_PER_PAGE = 3;
const uint32_t PAGES = 5; //!< pages started at 1, 11, 21, 31 and 41 s

/// The server's sender when it read a page's first request.
struct PageStartState
{
    Ptr<Ns2TcpSocket> sender; //!< the connection the request came on
    double cwnd;              //!< its cwnd then, packets
    uint32_t ssthresh;        //!< its ssthresh then, packets
    Time srtt;                //!< its smoothed RTT then (zero: no estimate)
    double previousCwnd{0};   //!< the previous page's connection's cwnd then, packets
};

/// What one run of the pair did.
struct ConnectionsRun
{
    std::vector<PageStartState> pages;            //!< per page, in order
    uint32_t pagesStarted{0};                     //!< the client's PageStart count
    std::size_t clientSockets{0};                 //!< sockets the client opened
    std::size_t serverConnections{0};             //!< connections the server accepted
    uint64_t clientResets{0};                     //!< the client's sender resets
    uint64_t serverResets{0};                     //!< the server's sender resets
    uint64_t bytesRequested{0};                   //!< sum of the files drawn
    uint64_t bytesReceived{0};                    //!< bytes the client read
    std::vector<TcpSocket::TcpStates_t> finalStates; //!< each server connection's last state
    uint32_t initialSsthresh{0};                  //!< the sender's initial ssthresh, packets
};

/**
 * Runs the pair with @p connections until 45 s.
 * @param connections the Connections of both ends
 * @return what happened
 */
ConnectionsRun
RunPair(WwwConnections connections)
{
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(1);
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
    link.SetChannelAttribute("Delay", StringValue("5ms"));
    NetDeviceContainer devices = link.Install(nodes);
    InternetStackHelper().Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    const Ipv4Address serverAddress = addresses.Assign(devices).GetAddress(0);
    TcpParameters tcp;
    tcp.model = TcpModel::NS2;
    tcp.flavor = TcpFlavor::RENO;
    // ns-2's idle restart would set an idle connection's cwnd to 1 anyway (10 s > RTO): off, so
    // that run keeps the window a reset clears.
    tcp.slowStartRestart = false;
    TcpFlavorHelper(tcp).Install(nodes);

    WwwHelper www(TcpFlavorSocketFactory::GetTypeId(), 8080);
    www.SetClientAttribute("RandomStartPhase", BooleanValue(false));
    www.SetClientAttribute("MinRequestsPerPage", UintegerValue(REQUESTS_PER_PAGE));
    www.SetClientAttribute("MaxRequestsPerPage", UintegerValue(REQUESTS_PER_PAGE));
    www.SetConnections(connections);
    ApplicationContainer pair = www.Install(nodes.Get(0), nodes.Get(1), serverAddress);
    auto server = DynamicCast<WwwServer>(pair.Get(WwwHelper::kServer));
    auto client = DynamicCast<WwwClient>(pair.Get(WwwHelper::kClient));
    auto fileSize = CreateObject<SpecwebFileSize>();
    fileSize->SetAttribute("ClassProbabilities", StringValue("0,0,1,0,0"));
    server->SetAttribute("FileSize", PointerValue(fileSize));
    server->AssignStreams(100);
    client->AssignStreams(200);
    pair.Start(START);

    ConnectionsRun run;
    run.initialSsthresh = tcp.initialSsthreshBytes / tcp.mss;
    client->TraceConnectWithoutContext("PageStart",
                                       Callback<void, uint32_t>([&](uint32_t) {
                                           ++run.pagesStarted;
                                       }));
    uint64_t requests = 0;
    server->TraceConnectWithoutContext(
        "Request",
        Callback<void, uint32_t>([&](uint32_t bytes) {
            run.bytesRequested += bytes;
            if (requests++ % REQUESTS_PER_PAGE != 0)
            {
                return;
            }
            auto sender = DynamicCast<Ns2TcpSocket>(server->GetConnection());
            PageStartState state{sender,
                                 sender->GetCwndPackets(),
                                 sender->GetSsthreshPackets(),
                                 sender->GetSmoothedRtt()};
            if (!run.pages.empty())
            {
                state.previousCwnd = run.pages.back().sender->GetCwndPackets();
            }
            run.pages.push_back(state);
            const std::size_t index = run.finalStates.size();
            run.finalStates.push_back(TcpSocket::ESTABLISHED);
            if (run.pages.size() == 1 || sender != run.pages[run.pages.size() - 2].sender)
            {
                sender->TraceConnectWithoutContext(
                    "State",
                    Callback<void, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t>(
                        [&run, index](TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now) {
                            run.finalStates[index] = now;
                        }));
            }
        }));
    Simulator::Stop(Seconds(45));
    Simulator::Run();
    run.clientSockets = client->GetSockets().size();
    run.serverConnections = server->GetConnections().size();
    run.clientResets = client->GetSenderResets();
    run.serverResets = server->GetSenderResets();
    run.bytesReceived = client->GetBytesReceived();
    Simulator::Destroy();
    RngSeedManager::SetRun(oldRun);
    return run;
}

} // namespace

/// page: every page opens a connection, starts on a new connection's window, and closes it.
class ConnectionPerPageTestCase : public TestCase
{
  public:
    ConnectionPerPageTestCase()
        : TestCase("page: one connection per page, each from a new window and closed at its end")
    {
    }

  private:
    void DoRun() override
    {
        const ConnectionsRun run = RunPair(WwwConnections::PAGE);
        NS_TEST_ASSERT_MSG_EQ(run.pagesStarted, PAGES, "pages started");
        NS_TEST_EXPECT_MSG_EQ(run.clientSockets, PAGES, "the client opened one per page");
        NS_TEST_EXPECT_MSG_EQ(run.serverConnections, PAGES, "the server accepted one per page");
        NS_TEST_ASSERT_MSG_EQ(run.pages.size(), PAGES, "every page's first request read");
        std::set<Ptr<Ns2TcpSocket>> senders;
        for (std::size_t page = 0; page < run.pages.size(); ++page)
        {
            const PageStartState& state = run.pages[page];
            senders.insert(state.sender);
            NS_TEST_EXPECT_MSG_EQ(state.cwnd, 1.0, "page " << page << " starts at cwnd 1");
            NS_TEST_EXPECT_MSG_EQ(state.ssthresh, run.initialSsthresh, "initial ssthresh");
            NS_TEST_EXPECT_MSG_EQ(state.srtt, Time(0), "no RTT estimate on a new connection");
            if (page > 0)
            {
                // The premise: the previous page's connection had opened its window.
                NS_TEST_EXPECT_MSG_GT(state.previousCwnd, 1.0, "page " << page - 1 << " grew");
            }
            NS_TEST_EXPECT_MSG_EQ(run.finalStates[page],
                                  TcpSocket::CLOSED,
                                  "page " << page << "'s connection closed");
        }
        NS_TEST_EXPECT_MSG_EQ(senders.size(), PAGES, "a different connection per page");
        NS_TEST_EXPECT_MSG_EQ(run.bytesReceived, run.bytesRequested, "every answer arrived");
        NS_TEST_EXPECT_MSG_EQ(run.clientResets + run.serverResets, 0, "no resets");
    }
};

/// pageReset: one connection, whose sender restarts from the initial state at each page.
class PageResetTestCase : public TestCase
{
  public:
    PageResetTestCase()
        : TestCase("pageReset: one connection, its sender back to cwnd 1 when a page starts")
    {
    }

  private:
    void DoRun() override
    {
        const ConnectionsRun reset = RunPair(WwwConnections::PAGE_RESET);
        const ConnectionsRun kept = RunPair(WwwConnections::RUN);
        for (const ConnectionsRun* run : {&reset, &kept})
        {
            NS_TEST_ASSERT_MSG_EQ(run->pagesStarted, PAGES, "pages started");
            NS_TEST_EXPECT_MSG_EQ(run->clientSockets, 1, "one connection");
            NS_TEST_EXPECT_MSG_EQ(run->serverConnections, 1, "one connection");
            NS_TEST_ASSERT_MSG_EQ(run->pages.size(), PAGES, "every page's first request read");
            NS_TEST_EXPECT_MSG_EQ(run->bytesReceived, run->bytesRequested, "answers arrived");
        }
        for (std::size_t page = 1; page < PAGES; ++page)
        {
            const PageStartState& state = reset.pages[page];
            NS_TEST_EXPECT_MSG_EQ(state.cwnd, 1.0, "page " << page << " starts at cwnd 1");
            NS_TEST_EXPECT_MSG_EQ(state.ssthresh, reset.initialSsthresh, "initial ssthresh");
            NS_TEST_EXPECT_MSG_EQ(state.srtt, Time(0), "RTT estimate cleared");
            // Without the reset the window and the estimate carry over (the same streams, so
            // the same pages and files).
            NS_TEST_EXPECT_MSG_GT(kept.pages[page].cwnd, 1.0, "run: page " << page);
            NS_TEST_EXPECT_MSG_GT(kept.pages[page].srtt, Time(0), "run: page " << page);
        }
        // Every page but the first (a new connection's state already), at both ends.
        NS_TEST_EXPECT_MSG_EQ(reset.serverResets, PAGES - 1, "the server's resets");
        NS_TEST_EXPECT_MSG_EQ(reset.clientResets, PAGES - 1, "the client's resets");
        NS_TEST_EXPECT_MSG_EQ(kept.clientResets + kept.serverResets, 0, "run: no resets");
    }
};

/// Tests of the WWW pair's Connections.
class WwwConnectionsTestSuite : public TestSuite
{
  public:
    WwwConnectionsTestSuite()
        : TestSuite("satnet-www-connections", Type::UNIT)
    {
        AddTestCase(new ConnectionPerPageTestCase, Duration::QUICK);
        AddTestCase(new PageResetTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static WwwConnectionsTestSuite g_wwwConnectionsTestSuite;
