/*
 * sabt's parameters: the Config of one run and its parameter table with the scenario presets.
 */
#ifndef SABT_CONFIG_H
#define SABT_CONFIG_H

#include "contract/cost-hint.h"
#include "contract/parameter-table.h"

#include <cstdint>
#include <string>
#include <vector>

namespace sabt
{

/// Sec. 2.2.2's 8 KB: the small-file limit, and the size four in five web documents are below
/// (bytes). The defaults of --smallFileLimit and --documentPercentile80, and e3's split of the
/// response times into small and large documents.
constexpr uint64_t kSmallFileBytes = 8192;

/**
 * @brief Every effective parameter of one run (Matsuo, Hasegawa and Murata, SABT,
 * docs/studies/sabt.md). The defaults, ranges and presets are in the parameter table
 * (Parameters()).
 */
struct Config
{
    std::string scenario;        //!< fig (Figs. 2-3), e1, e2 (Figs. 5, 8) or e3 (the web, Fig. 10)
    std::string algorithm;       //!< eq, abt, sabt or fixed
    uint64_t pool = 0;           //!< B_tot, bytes
    uint64_t fixedBuffer = 0;    //!< fixed: each connection's buffer, bytes
    double abtFactor = 0;        //!< abt: demand = abtFactor x cwnd
    std::string leftover;        //!< unassigned or proportional
    std::string sabtRtt;         //!< sabt's RTT: smoothed, minimum or base
    double lossWindow = 0;       //!< sabt's loss rate over this last span, s (0: all)
    double interval = 0;         //!< time between reassignments, s
    uint64_t smallFileLimit = 0; //!< a file below it is small, bytes (0: none)
    uint64_t fileSize = 0;       //!< each connection's file, bytes (0: bulk)
    uint32_t segmentSize = 0;    //!< TCP payload per packet, bytes
    uint32_t routerBuffer = 0;   //!< packets each bottleneck holds waiting
    double rate = 0;             //!< bottleneck rate (e2: the fast path's), bit/s
    double delay = 0;            //!< bottleneck one-way delay, s
    double slowRate = 0;         //!< e2: the slow (Ethernet) path's rate, bit/s
    uint32_t slowConnections = 0; //!< e2: n, the connections over the slow path
    uint32_t clients = 0;        //!< e3: WebStone's client hosts
    double documentMean = 0;     //!< e3: the document sizes' mean before truncation, bytes
    double documentPercentile80 = 0; //!< e3: their 80th percentile before truncation, bytes
    double documentMax = 0;      //!< e3: the largest document, bytes
    double accessRate = 0;       //!< sender -> router links, bit/s
    double accessDelay = 0;      //!< their one-way delay, s
    double egressRate = 0;       //!< router -> receiver links, bit/s
    double egressDelay = 0;      //!< their one-way delay, s
    double lossRate = 0;         //!< random loss of data packets at the receivers
    double startInterval = 0;    //!< connection i starts at (i - 1) x this, s
    double simTime = 0;          //!< simulated time, s
    double measureTime = 0;      //!< means are over the last measureTime s
    double tick = 0;             //!< TCP timer granularity, s
    double minRto = 0;           //!< lowest retransmission timeout, s
    double initialRto = 0;       //!< retransmission timeout before the first RTT sample, s
};

/// @return sabt's parameter table: the flags, their defaults and checks, the scenario presets
const satsweep::ParameterTable<Config>& Parameters();

/// @return the cost hint of --describe: core-seconds per simulated second, by scenario
satsweep::CostHint Cost();

/// One path of a run's topology: its bottleneck rate and its connections.
struct PathPlan
{
    double rate;          //!< bit/s
    uint32_t connections; //!< connections (one receiver each)
};

/// @return the paths of @p config's scenario (fig: 1, 2, 4 connections over three paths; e3:
/// one path to the clients)
std::vector<PathPlan> Paths(const Config& config);

/// @return connection @p i's (from 0) random loss rate (e1: lossRate x 1, 2, 4)
double LossRate(const Config& config, uint32_t i);

} // namespace sabt

#endif /* SABT_CONFIG_H */
