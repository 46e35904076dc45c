// The link presets as NED functions, so that Goyal98.ned resolves its links from satnet's own
// table (sim/helper/link-preset.h, plain C++; build.sh puts sim/ on the include path).
#include "helper/link-preset.h"

#include <omnetpp.h>

using namespace omnetpp;

namespace satsweep {
namespace goyal98 {

namespace {

/// @return the preset named by the first argument; a name not in the table is an error
const ns3::LinkPreset& presetOf(cValue argv[])
{
    const std::string name = argv[0].stdstringValue();
    const ns3::LinkPreset *preset = ns3::LinkPreset::Find(name);
    if (!preset)
        throw cRuntimeError("no link preset \"%s\"", name.c_str());
    return *preset;
}

cValue goyal98LinkDelay(cComponent *, cValue argv[], int)
{
    return presetOf(argv).GetDelaySeconds();
}

cValue goyal98LinkMss(cComponent *, cValue argv[], int)
{
    return (intval_t)presetOf(argv).mss;
}

cValue goyal98LinkWindow(cComponent *, cValue argv[], int)
{
    return (intval_t)presetOf(argv).windowBytes;
}

cValue goyal98LinkSsthresh(cComponent *, cValue argv[], int)
{
    return (intval_t)presetOf(argv).initialSsthreshBytes;
}

cValue goyal98LinkBufferCells(cComponent *, cValue argv[], int)
{
    const ns3::LinkPreset& preset = presetOf(argv);
    const double level = argv[1].doubleValue();
    for (std::size_t k = 0; k < ns3::LinkPreset::kBufferRttLevels.size(); ++k)
        if (ns3::LinkPreset::kBufferRttLevels[k] == level)
            return (intval_t)preset.bufferCells[k];
    return (intval_t)-1; // not a level of the study: Goyal98Metrics reports it
}

} // namespace

Define_NED_Function2(goyal98LinkDelay, "double goyal98LinkDelay(string link)", "goyal98",
                     "The link preset's trunk one-way delay in seconds");
Define_NED_Function2(goyal98LinkMss, "int goyal98LinkMss(string link)", "goyal98",
                     "The link preset's TCP MSS in bytes");
Define_NED_Function2(goyal98LinkWindow, "int goyal98LinkWindow(string link)", "goyal98",
                     "The link preset's receive window in bytes");
Define_NED_Function2(goyal98LinkSsthresh, "int goyal98LinkSsthresh(string link)", "goyal98",
                     "The link preset's initial ssthresh in bytes");
Define_NED_Function2(goyal98LinkBufferCells, "int goyal98LinkBufferCells(string link, double bufferRtt)",
                     "goyal98", "The link preset's trunk buffer in cells at bufferRtt (0.5, 1, 2), else -1");

} // namespace goyal98
} // namespace satsweep
