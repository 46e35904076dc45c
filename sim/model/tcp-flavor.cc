#include "model/tcp-flavor.h"

#include <array>
#include <utility>

namespace ns3
{

namespace
{
const std::array<std::pair<TcpFlavor, const char*>, 4> FLAVOR_NAMES{{
    {TcpFlavor::VANILLA, "vanilla"},
    {TcpFlavor::RENO, "reno"},
    {TcpFlavor::NEWRENO, "newreno"},
    {TcpFlavor::SACK, "sack"},
}};
} // namespace

std::optional<TcpFlavor>
ParseTcpFlavor(const std::string& name)
{
    for (const auto& [flavor, flavorName] : FLAVOR_NAMES)
    {
        if (name == flavorName)
        {
            return flavor;
        }
    }
    return std::nullopt;
}

std::string
ToString(TcpFlavor flavor)
{
    for (const auto& [f, flavorName] : FLAVOR_NAMES)
    {
        if (f == flavor)
        {
            return flavorName;
        }
    }
    return "unknown";
}

Ptr<const AttributeChecker>
MakeTcpFlavorChecker()
{
    return MakeEnumChecker(TcpFlavor::VANILLA,
                           "vanilla",
                           TcpFlavor::RENO,
                           "reno",
                           TcpFlavor::NEWRENO,
                           "newreno",
                           TcpFlavor::SACK,
                           "sack");
}

} // namespace ns3
