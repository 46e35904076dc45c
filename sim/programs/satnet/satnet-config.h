/*
 * satnet's parameters: the Config of one run, and its parameter table with the link presets.
 */
#ifndef SATNET_CONFIG_H
#define SATNET_CONFIG_H

#include "contract/cost-hint.h"
#include "contract/parameter-table.h"

#include <cstdint>
#include <string>

namespace satnet
{

/**
 * @brief Every effective parameter of one run.
 *
 * The defaults, ranges and presets are in the parameter table (Parameters()): a Config comes
 * from Parameters().Parse(), not from this struct's zeros.
 */
struct Config
{
    std::string link;          //!< wan, meo or geo: the link preset
    std::string flavor;        //!< vanilla, reno, newreno or sack
    std::string tcpModel;      //!< ns3 or ns2: whose TCP sender arithmetic
    std::string drop;          //!< epd, sd or tail
    std::string workload;      //!< www (the study) or bulk (one endless transfer per pair)
    std::string poissonBounds; //!< redraw or clamp: how the load's Poisson(5) stays in 1..9
    double bufferRtt = 0;      //!< buffer in RTT x bandwidth (0 when bufferCells was given)
    uint32_t bufferCells = 0;  //!< K of the trunk ports, cells
    uint32_t clients = 0;      //!< client/server pairs
    double simTime = 0;        //!< simulated seconds
    double epdThreshold = 0;   //!< R / K
    double sdZ = 0;            //!< Z of Selective Drop
    std::string switchModel;   //!< frame or cell: how the trunk ports buffer cells
    double delay = 0;          //!< one-way trunk delay, seconds
    double bottleneckRate = 0; //!< trunk cell rate, bit/s
    double accessRate = 0;     //!< host link cell rate, bit/s
    double accessDelay = 0;    //!< host link one-way delay, seconds
    uint32_t mss = 0;          //!< TCP segment payload, bytes
    uint32_t window = 0;       //!< receive window (buffer), bytes
    uint32_t ssthresh = 0;     //!< initial slow-start threshold, bytes
    double tick = 0;           //!< TCP timer granularity, seconds
    double minRto = 0;         //!< lowest retransmission timeout, seconds
    bool slowStartRestart = true; //!< ns2 model: cwnd back to 1 after an idle RTO
    std::string pagePacing;    //!< period or afterBatch: when a WWW client's next page starts
    std::string timerClock;    //!< perConnection or shared: the retransmission timers' clock
    bool fastRetransmitGuard = true; //!< ns2 model: ns-2's bug_fix_ against repeated fast rtx
    std::string cwndUnit;      //!< packets or bytes: what the ns2 sender's window counts
    std::string clientPhase;   //!< random or common: when the WWW clients' first pages start
    bool bsdTimers = false;    //!< shared timer clock and common client phase together
    std::string connections;   //!< run, page or pageReset: a WWW pair's TCP connections
    std::string partialFrames; //!< ppd or accept: a cut frame's later cells (cell model)
    double timelineBin = 1;    //!< s: the timeline table's bin; 0: no timeline
};

/**
 * @return satnet's parameter table: the flags, their defaults and checks, `--link`'s presets
 *         (ns3::LinkPreset) and the buffer's resolution to cells
 */
const satsweep::ParameterTable<Config>& Parameters();

/// @return the cost hint of --describe: core-seconds per pair and simulated second, by link
satsweep::CostHint Cost();

/// @return the trunk's cell-rate x round-trip product in cells for @p config's rate and delay
double PipeCells(const Config& config);

} // namespace satnet

#endif /* SATNET_CONFIG_H */
