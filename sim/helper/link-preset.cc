#include "helper/link-preset.h"

#include "ns3/abort.h"

namespace ns3
{

const std::vector<LinkPreset>&
LinkPreset::GetAll()
{
    // From the study (Goyal, Jain, Kota et al. 1998): MSS 1024 B on WAN, the ATM MTU's 9180 B
    // on the satellite links, whose window and initial ssthresh grow with their
    // bandwidth-delay product (window scale 0 / 5 / 6). WAN's 2 RTT buffer is 2300 cells: one
    // full 23-cell frame for each of 100 VCs.
    //
    // costSeconds was measured on the 2-core reference machine with SACK, SD and a 1 RTT
    // buffer, at 50 and 100 pairs and 30 and 60 simulated seconds: WAN's 1024 B segments make
    // ~6x the events of MEO's and GEO's 9180 B ones. It only orders jobs.
    static const std::vector<LinkPreset> presets{
        {"wan", MilliSeconds(5), 1024, 65535, 56250, {531, 1062, 2300}, 1.4e-3},
        {"meo", MilliSeconds(100), 9180, 2097120, 1125000, {10615, 21230, 42460}, 2.2e-4},
        {"geo", MilliSeconds(275), 9180, 4194240, 3093750, {29190, 58380, 116760}, 2.2e-4},
    };
    return presets;
}

const LinkPreset*
LinkPreset::Find(const std::string& name)
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

const LinkPreset&
LinkPreset::Get(const std::string& name)
{
    const LinkPreset* preset = Find(name);
    NS_ABORT_MSG_IF(!preset, "no link preset " << name);
    return *preset;
}

uint32_t
LinkPreset::GetBufferCells(double rttLevel) const
{
    for (size_t k = 0; k < kBufferRttLevels.size(); ++k)
    {
        if (kBufferRttLevels[k] == rttLevel)
        {
            return bufferCells[k];
        }
    }
    NS_ABORT_MSG("no buffer of " << rttLevel << " RTT for link " << name);
    return 0;
}

} // namespace ns3
