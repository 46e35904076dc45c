/*
 * AAL5 framing arithmetic: how an IP datagram becomes ATM cells (as satnet's sim/model/aal5.h).
 */
#ifndef SATSWEEP_GOYAL98_AAL5_H
#define SATSWEEP_GOYAL98_AAL5_H

#include <cstdint>

namespace satsweep {
namespace goyal98 {
namespace aal5 {

/// Bytes of one ATM cell on the wire (5 B header + 48 B payload).
constexpr uint32_t kCellBytes = 53;
/// Payload bytes carried by one cell.
constexpr uint32_t kCellPayloadBytes = 48;
/// LLC/SNAP encapsulation (RFC 1483) prepended to each datagram.
constexpr uint32_t kLlcSnapBytes = 8;
/// AAL5 CPCS trailer appended to each datagram.
constexpr uint32_t kTrailerBytes = 8;
/// TCP + IP headers (no options: timestamps are off).
constexpr uint32_t kTcpIpHeaderBytes = 40;

/// Cells needed to carry an IP datagram of @p ipBytes (LLC/SNAP + trailer, padded to 48 B).
constexpr uint32_t CellsForDatagram(uint32_t ipBytes)
{
    return (ipBytes + kLlcSnapBytes + kTrailerBytes + kCellPayloadBytes - 1) / kCellPayloadBytes;
}

/// Bytes on the wire for an IP datagram of @p ipBytes.
constexpr uint32_t WireBytesForDatagram(uint32_t ipBytes)
{
    return CellsForDatagram(ipBytes) * kCellBytes;
}

/// Highest TCP payload throughput (bit/s) of a link of cell rate @p cellRateBps, full segments.
constexpr double MaxTcpThroughput(double cellRateBps, uint32_t mss)
{
    return cellRateBps * mss / WireBytesForDatagram(mss + kTcpIpHeaderBytes);
}

static_assert(CellsForDatagram(1072) == 23, "MSS 1024: 23 cells");
static_assert(CellsForDatagram(9220) == 193, "MSS 9180: 193 cells");

} // namespace aal5
} // namespace goyal98
} // namespace satsweep

#endif
