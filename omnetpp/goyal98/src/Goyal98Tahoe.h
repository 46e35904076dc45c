/*
 * INET's TcpTahoe with the study's coarse timer and counters (Goyal98TcpAlgorithm).
 */
#ifndef SATSWEEP_GOYAL98_GOYAL98TAHOE_H
#define SATSWEEP_GOYAL98_GOYAL98TAHOE_H

#include "Goyal98TcpAlgorithm.h"

#include "inet/transportlayer/tcp/flavours/TcpTahoe.h"

namespace satsweep {
namespace goyal98 {

/// INET's TcpTahoe with the study's timer: tcpAlgorithmClass "satsweep::goyal98::Goyal98Tahoe".
class Goyal98Tahoe : public Goyal98TcpAlgorithm<inet::tcp::TcpTahoe>
{
};

} // namespace goyal98
} // namespace satsweep

#endif
