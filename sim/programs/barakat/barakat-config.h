/*
 * barakat's parameters: the Config of one run and its parameter table with the scenario presets.
 */
#ifndef BARAKAT_CONFIG_H
#define BARAKAT_CONFIG_H

#include "contract/cost-hint.h"
#include "contract/parameter-table.h"

#include <cstdint>
#include <string>

namespace barakat
{

/**
 * @brief Every effective parameter of one run (Barakat & Altman 2000, docs/studies/barakat.md).
 *
 * Windows, thresholds, buffers and file sizes are in packets of segmentSize payload bytes. The
 * defaults, ranges and presets are in the parameter table (Parameters()).
 */
struct Config
{
    std::string scenario;       //!< s1 (one transfer) or s2 (sources with successive transfers)
    double rate = 0;            //!< bottleneck rate, bit/s
    double rtt = 0;             //!< T: the round trip's propagation delay, s
    uint32_t buffer = 0;        //!< B: packets the bottleneck holds waiting
    double accessRate = 0;      //!< every access link's rate, bit/s
    double accessDelay = 0;     //!< every access link's one-way delay, s
    uint32_t segmentSize = 0;   //!< TCP payload per packet, bytes
    uint32_t headerSize = 0;    //!< TCP/IP headers per packet, bytes (on the wire)
    uint32_t fileSize = 0;      //!< S1: the transfer's size, packets
    double minFile = 0;         //!< S2: least file size, bytes
    double maxFile = 0;         //!< S2: largest file size, bytes
    double maxGap = 0;          //!< S2: gaps and first starts are U[0, maxGap] s
    uint32_t sources = 0;       //!< sender hosts (S1: 1)
    uint32_t ssthresh = 0;      //!< W_th: initial slow-start threshold, packets
    uint32_t window = 0;        //!< receiver's window, packets
    bool delayedAck = true;     //!< the receiver ACKs every other packet
    double delAckTimeout = 0;   //!< delayed-ACK timer, s
    std::string slowStart;      //!< stcp, bc or dbc: the first slow start's increase
    uint32_t bcLimit = 0;       //!< L: most segments one ACK counts for (bc, dbc)
    double dbcMaxD = 0;         //!< d_max of dbc
    double tick = 0;            //!< TCP timer granularity, s
    double minRto = 0;          //!< lowest retransmission timeout, s
    double initialRto = 0;      //!< retransmission timeout before the first RTT sample, s
    double simTime = 0;         //!< simulated time, s (S1 ends when its transfer does)
    bool cwndTrace = false;     //!< record the cwnd table
};

/// @return barakat's parameter table: the flags, their defaults and checks, the scenario presets
const satsweep::ParameterTable<Config>& Parameters();

/// @return the cost hint of --describe: core-seconds per simulated second, by scenario
satsweep::CostHint Cost();

/// @return muT: the bottleneck rate x T in packets of segmentSize + headerSize bytes
double BdpPackets(const Config& config);

} // namespace barakat

#endif /* BARAKAT_CONFIG_H */
