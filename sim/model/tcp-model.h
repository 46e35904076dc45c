/*
 * Which TCP implementation a TcpFlavorSocketFactory builds: ns-3's or ns-2.1b3's.
 */
#ifndef SATNET_TCP_MODEL_H
#define SATNET_TCP_MODEL_H

#include "ns3/enum.h"

#include <optional>
#include <string>

namespace ns3
{

/**
 * @brief TCP sender model of the study's sockets.
 *
 * NS3 is TcpFlavorSocket (ns-3's TcpSocketBase with the flavors' recovery grafted on); NS2 is
 * Ns2TcpSocket, which follows the ns-2.1b3 TCP agents the paper ran (see Ns2TcpSocket).
 */
enum class TcpModel
{
    NS3, ///< ns-3's TcpSocketBase arithmetic (TcpFlavorSocket)
    NS2, ///< ns-2.1b3's TCP agents (Ns2TcpSocket)
};

/**
 * @param name "ns3" or "ns2"
 * @return the model, or std::nullopt for any other name
 */
std::optional<TcpModel> ParseTcpModel(const std::string& name);

/**
 * @param model a model
 * @return its name: "ns3" or "ns2"
 */
std::string ToString(TcpModel model);

/// @return the attribute checker of a TcpModel EnumValue, with the names above
Ptr<const AttributeChecker> MakeTcpModelChecker();

} // namespace ns3

#endif // SATNET_TCP_MODEL_H
