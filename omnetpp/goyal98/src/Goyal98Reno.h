/*
 * INET's TcpReno with the study's coarse timer and counters (Goyal98TcpAlgorithm).
 */
#ifndef SATSWEEP_GOYAL98_GOYAL98RENO_H
#define SATSWEEP_GOYAL98_GOYAL98RENO_H

#include "Goyal98TcpAlgorithm.h"

#include "inet/transportlayer/tcp/flavours/TcpReno.h"

namespace satsweep {
namespace goyal98 {

/// INET's TcpReno with the study's timer: tcpAlgorithmClass "satsweep::goyal98::Goyal98Reno".
class Goyal98Reno : public Goyal98TcpAlgorithm<inet::tcp::TcpReno>
{
};

} // namespace goyal98
} // namespace satsweep

#endif
