/*
 * satnet's command line: the flags, their validation, and the link presets of the study.
 */
#ifndef SATNET_CONFIG_H
#define SATNET_CONFIG_H

#include "model/atm-cell-queue.h"

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace satnet
{

/// Bad command line: the message names the flag and what is allowed.
class UsageError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// Every effective parameter of one run.
struct Config
{
    std::string link = "wan";       //!< wan, meo or geo: the presets below
    std::string flavor = "sack";    //!< vanilla, reno, newreno or sack
    std::string drop = "epd";       //!< epd, sd or tail
    std::string workload = "www";   //!< www (the study) or bulk (one endless transfer per pair)
    double bufferRtt = 1.0;         //!< buffer in RTT x bandwidth (0 when bufferCells was given)
    uint32_t bufferCells = 0;       //!< K of the trunk ports
    uint32_t clients = 100;         //!< client/server pairs
    double simTime = 100.0;         //!< simulated seconds
    uint32_t run = 1;               //!< ns-3 RngRun: the replication's random stream
    uint32_t seed = 1;              //!< ns-3 RngSeed
    double epdThreshold = 0.8;      //!< R / K
    double sdZ = 0.8;               //!< Z of Selective Drop
    double delay = 0.005;           //!< one-way trunk delay, seconds
    double bottleneckRate = 45e6;   //!< trunk cell rate, bit/s
    double accessRate = 149.76e6;   //!< host link cell rate, bit/s
    double accessDelay = 5e-6;      //!< host link one-way delay, seconds
    uint32_t mss = 1024;            //!< TCP segment payload, bytes
    uint32_t window = 65535;        //!< receive window (buffer), bytes
    uint32_t ssthresh = 56250;      //!< initial slow-start threshold, bytes
    double tick = 0.1;              //!< TCP timer granularity, seconds
    double minRto = 0.2;            //!< lowest retransmission timeout, seconds
    std::string out;                //!< result file; empty: standard output
};

/**
 * Parses `--name=value` flags over the defaults of `--link`.
 * @throws UsageError on an unknown flag, a malformed or disallowed value
 */
Config ParseCommandLine(const std::vector<std::string>& args);

/// @return the help text listing every flag
std::string Usage();

/// @return the trunk's cell-rate x round-trip product in cells for @p config's link
double PipeCells(const Config& config);

} // namespace satnet

#endif /* SATNET_CONFIG_H */
