/*
 * Tests of WwwClient's PagePacing (satnet's --pagePacing): when a client's next page starts.
 *
 * One client/server pair over a slow link, so that a page of three 10-90 KB documents takes
 * tens of seconds to arrive, longer than the 10 s PagePeriod. When a page's last document has
 * fully arrived is worked out here from the traces alone (the server's file sizes in request
 * order, the client's bytes read), not from the client's own bookkeeping.
 */
#include "helper/www-helper.h"
#include "model/specweb-file-size.h"
#include "model/www-client.h"
#include "model/www-server.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/pointer.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <vector>

using namespace ns3;

namespace
{

const Time START = Seconds(1);
const Time PAGE_PERIOD = Seconds(10); //!< WwwClient's default, the study's 10 s
const uint32_t REQUESTS_PER_PAGE = 3;

/// What one run of the pair did.
struct PacingRun
{
    std::vector<Time> pageStarts;     //!< the client's page starts
    std::vector<uint32_t> fileBytes;  //!< the server's file sizes, in request order
    std::vector<Time> readTimes;      //!< when the client read bytes ...
    std::vector<uint64_t> readTotals; //!< ... and its total read by then
    uint64_t pagesDone{0};            //!< the client's own count of finished pages

    /**
     * @param page a page index
     * @return when the client had read the last byte of @p page's last document, or -1 s if
     *         it never did
     */
    Time PageEnd(std::size_t page) const
    {
        const std::size_t lastRequest = (page + 1) * REQUESTS_PER_PAGE;
        if (fileBytes.size() < lastRequest)
        {
            return Seconds(-1);
        }
        uint64_t end = 0;
        for (std::size_t i = 0; i < lastRequest; ++i)
        {
            end += fileBytes[i];
        }
        for (std::size_t i = 0; i < readTimes.size(); ++i)
        {
            if (readTotals[i] >= end)
            {
                return readTimes[i];
            }
        }
        return Seconds(-1);
    }
};

/**
 * Runs one pair: the client starts at once (no phase) with pages of three requests, the server
 * draws every file from class 2 (10-90 KB), and the link between them carries 40 kbit/s.
 * @param pacing the client's PagePacing
 * @param end end of the simulation
 * @return what happened
 */
PacingRun
RunSlowPair(WwwClient::PagePacing pacing, Time end)
{
    const uint64_t oldRun = RngSeedManager::GetRun();
    RngSeedManager::SetRun(1);
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", StringValue("40kbps"));
    link.SetChannelAttribute("Delay", StringValue("1ms"));
    NetDeviceContainer devices = link.Install(nodes);
    InternetStackHelper().Install(nodes);
    Ipv4AddressHelper addresses("10.1.1.0", "255.255.255.0");
    const Ipv4Address serverAddress = addresses.Assign(devices).GetAddress(0);

    WwwHelper www(TcpSocketFactory::GetTypeId(), 8080);
    www.SetClientAttribute("RandomStartPhase", BooleanValue(false));
    www.SetClientAttribute("MinRequestsPerPage", UintegerValue(REQUESTS_PER_PAGE));
    www.SetClientAttribute("MaxRequestsPerPage", UintegerValue(REQUESTS_PER_PAGE));
    www.SetClientAttribute("PagePeriod", TimeValue(PAGE_PERIOD));
    www.SetClientAttribute("PagePacing", EnumValue(pacing));
    ApplicationContainer pair = www.Install(nodes.Get(0), nodes.Get(1), serverAddress);
    auto server = DynamicCast<WwwServer>(pair.Get(WwwHelper::kServer));
    auto client = DynamicCast<WwwClient>(pair.Get(WwwHelper::kClient));
    auto fileSize = CreateObject<SpecwebFileSize>();
    fileSize->SetAttribute("ClassProbabilities", StringValue("0,0,1,0,0"));
    server->SetAttribute("FileSize", PointerValue(fileSize));
    server->AssignStreams(100);
    client->AssignStreams(200);
    pair.Start(START);

    PacingRun run;
    client->TraceConnectWithoutContext("PageStart", Callback<void, uint32_t>([&](uint32_t) {
                                           run.pageStarts.push_back(Simulator::Now());
                                       }));
    server->TraceConnectWithoutContext("Request", Callback<void, uint32_t>([&](uint32_t bytes) {
                                           run.fileBytes.push_back(bytes);
                                       }));
    uint64_t total = 0;
    client->TraceConnectWithoutContext("Rx",
                                       Callback<void, Ptr<const Packet>>([&](Ptr<const Packet> p) {
                                           total += p->GetSize();
                                           run.readTimes.push_back(Simulator::Now());
                                           run.readTotals.push_back(total);
                                       }));
    Simulator::Stop(end);
    Simulator::Run();
    run.pagesDone = client->GetPagesDone();
    Simulator::Destroy();
    RngSeedManager::SetRun(oldRun);
    return run;
}

} // namespace

/// afterBatch: the 10 s lag runs from the arrival of the previous page's last document.
class AfterBatchPacingTestCase : public TestCase
{
  public:
    AfterBatchPacingTestCase()
        : TestCase("afterBatch: the next page starts 10 s after the last document arrived")
    {
    }

  private:
    void DoRun() override
    {
        const PacingRun run = RunSlowPair(WwwClient::PagePacing::AFTER_BATCH, Seconds(200));
        NS_TEST_ASSERT_MSG_GT_OR_EQ(run.pageStarts.size(), 3, "pages started");
        NS_TEST_EXPECT_MSG_EQ(run.pageStarts[0], START, "first page at the start (no phase)");
        for (std::size_t page = 0; page + 1 < run.pageStarts.size(); ++page)
        {
            const Time end = run.PageEnd(page);
            NS_TEST_ASSERT_MSG_EQ(end.IsPositive(), true, "page " << page << " never arrived");
            const Time took = end - run.pageStarts[page];
            // The premise: a page takes tens of seconds here, far longer than the period.
            NS_TEST_EXPECT_MSG_GT(took, Seconds(15), "page " << page << " took only " << took);
            NS_TEST_EXPECT_MSG_LT(took, Seconds(60), "page " << page << " took " << took);
            NS_TEST_EXPECT_MSG_EQ(run.pageStarts[page + 1],
                                  end + PAGE_PERIOD,
                                  "page " << page + 1 << " started "
                                          << (run.pageStarts[page + 1] - end).As(Time::S)
                                          << " after page " << page << "'s last byte");
        }
        NS_TEST_EXPECT_MSG_GT_OR_EQ(run.pagesDone, run.pageStarts.size() - 1, "pages done");
    }
};

/// period (the default): the next page starts 10 s after the previous one started.
class PeriodPacingTestCase : public TestCase
{
  public:
    PeriodPacingTestCase()
        : TestCase("period: the next page starts 10 s after the previous one started")
    {
    }

  private:
    void DoRun() override
    {
        const PacingRun run = RunSlowPair(WwwClient::PagePacing::PERIOD, Seconds(200));
        NS_TEST_ASSERT_MSG_GT_OR_EQ(run.pageStarts.size(), 3, "pages started");
        NS_TEST_EXPECT_MSG_EQ(run.pageStarts[0], START, "first page at the start (no phase)");
        for (std::size_t page = 0; page + 1 < run.pageStarts.size(); ++page)
        {
            NS_TEST_EXPECT_MSG_EQ(run.pageStarts[page + 1] - run.pageStarts[page],
                                  PAGE_PERIOD,
                                  "page period");
        }
        // The premise: the first page's documents were still arriving when the next started.
        const Time end = run.PageEnd(0);
        NS_TEST_ASSERT_MSG_EQ(end.IsPositive(), true, "page 0 never arrived");
        NS_TEST_EXPECT_MSG_GT(end - run.pageStarts[0], Seconds(15), "page 0 took too little");
        NS_TEST_EXPECT_MSG_GT(end, run.pageStarts[1], "page 1 waited for page 0");
        NS_TEST_EXPECT_MSG_EQ(run.pagesDone, 0, "pages are not counted done with period");
    }
};

/// Tests of WwwClient's PagePacing.
class WwwPagePacingTestSuite : public TestSuite
{
  public:
    WwwPagePacingTestSuite()
        : TestSuite("satnet-page-pacing", Type::UNIT)
    {
        AddTestCase(new AfterBatchPacingTestCase, Duration::QUICK);
        AddTestCase(new PeriodPacingTestCase, Duration::QUICK);
    }
};

/// The suite's only instance.
static WwwPagePacingTestSuite g_wwwPagePacingTestSuite;
