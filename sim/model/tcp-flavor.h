/*
 * The four TCP flavors of the study: Vanilla, Reno, NewReno and SACK.
 */
#ifndef SATNET_TCP_FLAVOR_H
#define SATNET_TCP_FLAVOR_H

#include "ns3/enum.h"

#include <optional>
#include <string>

namespace ns3
{

/**
 * @brief TCP loss-recovery flavor of a TcpFlavorSocket.
 *
 * See TcpFlavorSocket for what each one does.
 */
enum class TcpFlavor
{
    VANILLA, ///< slow start + congestion avoidance, losses found by timeout only
    RENO,    ///< fast retransmit + fast recovery, leaves recovery on any new ACK
    NEWRENO, ///< RFC 6582 recovery: stays until the recovery point is acknowledged
    SACK,    ///< RFC 6675 SACK-based recovery
};

/**
 * @brief Parses a flavor name.
 * @param name one of "vanilla", "reno", "newreno", "sack" (lower case, as ToString() writes them)
 * @return the flavor, or std::nullopt when @p name is none of them
 */
std::optional<TcpFlavor> ParseTcpFlavor(const std::string& name);

/**
 * @param flavor a flavor
 * @return its name: "vanilla", "reno", "newreno" or "sack"
 */
std::string ToString(TcpFlavor flavor);

/// @return the attribute checker of a TcpFlavor EnumValue, with the names above
Ptr<const AttributeChecker> MakeTcpFlavorChecker();

} // namespace ns3

#endif // SATNET_TCP_FLAVOR_H
