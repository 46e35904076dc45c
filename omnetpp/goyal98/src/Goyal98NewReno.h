/*
 * INET's TcpNewReno with the study's coarse timer and counters (Goyal98TcpAlgorithm).
 */
#ifndef SATSWEEP_GOYAL98_GOYAL98NEWRENO_H
#define SATSWEEP_GOYAL98_GOYAL98NEWRENO_H

#include "Goyal98TcpAlgorithm.h"

#include "inet/transportlayer/tcp/flavours/TcpNewReno.h"

namespace satsweep {
namespace goyal98 {

/// INET's TcpNewReno with the study's timer: tcpAlgorithmClass "satsweep::goyal98::Goyal98NewReno".
class Goyal98NewReno : public Goyal98TcpAlgorithm<inet::tcp::TcpNewReno>
{
};

} // namespace goyal98
} // namespace satsweep

#endif
