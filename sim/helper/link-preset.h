/*
 * The study's links (WAN, MEO, GEO) and everything each one sets, in one table. Plain C++ (no
 * ns-3): the OMNeT++ model (omnetpp/goyal98/) resolves its links from the same table. A name or
 * buffer level the table has not throws std::invalid_argument.
 */
#ifndef SATNET_LINK_PRESET_H
#define SATNET_LINK_PRESET_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief One link of the study: the trunk's delay, the TCP settings and buffers that go with
 * it, and what a run on it costs.
 *
 * The one place these numbers live: TcpParameters::ForLink() takes its TCP settings from here,
 * satnet its `--link` presets, their help texts and its cost hint, the OMNeT++ model its NED
 * functions goyal98Link*() (omnetpp/goyal98/src/LinkPresets.cc). The timer tick and minimum RTO
 * are the same on every link (TcpParameters' defaults: 100 ms and 200 ms).
 */
struct LinkPreset
{
    /// Trunk buffer levels, in RTT x bandwidth, for which the study gives cells.
    static constexpr std::array<double, 3> kBufferRttLevels{0.5, 1, 2};

    std::string name;              ///< "wan", "meo" or "geo"
    uint32_t delayMilliseconds;    ///< trunk one-way delay
    uint32_t mss;                  ///< TCP segment payload, bytes
    uint32_t windowBytes;          ///< receive buffer = largest advertised window, bytes
    uint32_t initialSsthreshBytes; ///< initial slow-start threshold, bytes
    /// Trunk port buffer in cells, for each level of kBufferRttLevels.
    std::array<uint32_t, kBufferRttLevels.size()> bufferCells;
    /// satnet's cost: core-seconds per client/server pair per simulated second.
    double costSeconds;

    /// @return the trunk one-way delay in seconds (the double nearest to it)
    double GetDelaySeconds() const
    {
        return delayMilliseconds / 1000.0;
    }

    /**
     * @param rttLevel one of kBufferRttLevels
     * @return the trunk buffer in cells at that level (throws at another level)
     */
    uint32_t GetBufferCells(double rttLevel) const
    {
        for (std::size_t k = 0; k < kBufferRttLevels.size(); ++k)
        {
            if (kBufferRttLevels[k] == rttLevel)
            {
                return bufferCells[k];
            }
        }
        throw std::invalid_argument("no buffer of " + std::to_string(rttLevel) +
                                    " RTT for link " + name);
    }

    /// @return the presets, in the order wan, meo, geo
    static const std::vector<LinkPreset>& GetAll()
    {
        // From the study (Goyal, Jain, Kota et al. 1998): MSS 1024 B on WAN, the ATM MTU's
        // 9180 B on the satellite links, whose window and initial ssthresh grow with their
        // bandwidth-delay product (window scale 0 / 5 / 6). WAN's 2 RTT buffer is 2300 cells:
        // one full 23-cell frame for each of 100 VCs.
        //
        // costSeconds was measured on the 2-core reference machine with SACK, SD and a 1 RTT
        // buffer, at 50 and 100 pairs and 30 and 60 simulated seconds: WAN's 1024 B segments
        // make ~6x the events of MEO's and GEO's 9180 B ones. It only orders jobs.
        static const std::vector<LinkPreset> presets{
            {"wan", 5, 1024, 65535, 56250, {531, 1062, 2300}, 1.4e-3},
            {"meo", 100, 9180, 2097120, 1125000, {10615, 21230, 42460}, 2.2e-4},
            {"geo", 275, 9180, 4194240, 3093750, {29190, 58380, 116760}, 2.2e-4},
        };
        return presets;
    }

    /// @param name a link's name @return its preset, or nullptr if there is none
    static const LinkPreset* Find(const std::string& name)
    {
        for (const auto& preset : GetAll())
        {
            if (preset.name == name)
            {
                return &preset;
            }
        }
        return nullptr;
    }

    /// @param name a link's name @return its preset (throws if there is none)
    static const LinkPreset& Get(const std::string& name)
    {
        const LinkPreset* preset = Find(name);
        if (!preset)
        {
            throw std::invalid_argument("no link preset " + name);
        }
        return *preset;
    }
};

} // namespace ns3

#endif // SATNET_LINK_PRESET_H
