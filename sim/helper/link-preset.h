/*
 * The study's links (WAN, MEO, GEO) and everything each one sets, in one table.
 */
#ifndef SATNET_LINK_PRESET_H
#define SATNET_LINK_PRESET_H

#include "ns3/nstime.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief One link of the study: the trunk's delay, the TCP settings and buffers that go with
 * it, and what a run on it costs.
 *
 * The one place these numbers live: TcpParameters::ForLink() takes its TCP settings from here,
 * satnet its `--link` presets and its cost hint. The timer tick and minimum RTO are the same on
 * every link (TcpParameters' defaults: 100 ms and 200 ms).
 */
struct LinkPreset
{
    /// Trunk buffer levels, in RTT x bandwidth, for which the study gives cells.
    static constexpr std::array<double, 3> kBufferRttLevels{0.5, 1, 2};

    std::string name;              ///< "wan", "meo" or "geo"
    Time delay;                    ///< trunk one-way delay
    uint32_t mss;                  ///< TCP segment payload, bytes
    uint32_t windowBytes;          ///< receive buffer = largest advertised window, bytes
    uint32_t initialSsthreshBytes; ///< initial slow-start threshold, bytes
    /// Trunk port buffer in cells, for each level of kBufferRttLevels.
    std::array<uint32_t, kBufferRttLevels.size()> bufferCells;
    /// satnet's cost: core-seconds per client/server pair per simulated second.
    double costSeconds;

    /**
     * @param rttLevel one of kBufferRttLevels
     * @return the trunk buffer in cells at that level (aborts on another level)
     */
    uint32_t GetBufferCells(double rttLevel) const;

    /// @return the presets, in the order wan, meo, geo
    static const std::vector<LinkPreset>& GetAll();
    /// @param name a link's name @return its preset, or nullptr if there is none
    static const LinkPreset* Find(const std::string& name);
    /// @param name a link's name @return its preset (aborts if there is none)
    static const LinkPreset& Get(const std::string& name);
};

} // namespace ns3

#endif // SATNET_LINK_PRESET_H
