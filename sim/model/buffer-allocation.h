/*
 * How a host's send-buffer pool is divided among its connections: EQ, ABT, SABT, fixed.
 */
#ifndef SATNET_BUFFER_ALLOCATION_H
#define SATNET_BUFFER_ALLOCATION_H

#include "ns3/attribute.h"

#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/// The send-buffer tuning algorithms of Matsuo, Hasegawa and Murata (docs/studies/sabt.md, "The
/// buffer pool and its reassignment").
enum class BufferAlgorithm
{
    EQ,    ///< an equal share of the pool each
    ABT,   ///< demand from cwnd (Semke et al. 1998), max-min when the demands exceed the pool
    SABT,  ///< demand from the expected throughput, proportional reassignment of the excess
    FIXED, ///< a fixed buffer each, in start order, while the pool lasts
};

/// What happens to the pool left over when every demand fits (docs/studies/sabt.md, "Where the
/// paper is silent").
enum class Leftover
{
    UNASSIGNED,   ///< kept back: each connection gets its demand
    PROPORTIONAL, ///< handed out in proportion to the demands
};

/// @return the algorithm named @p name (eq, abt, sabt, fixed), or std::nullopt
std::optional<BufferAlgorithm> ParseBufferAlgorithm(const std::string& name);
/// @return the name of @p algorithm
std::string ToString(BufferAlgorithm algorithm);
/// @return the checker of a BufferAlgorithm EnumValue
Ptr<const AttributeChecker> MakeBufferAlgorithmChecker();
/// @return the checker of a Leftover EnumValue (unassigned, proportional)
Ptr<const AttributeChecker> MakeLeftoverChecker();

/**
 * @brief SABT's reassignment (Sec. 2.1): when the demands fit, each gets its demand; otherwise
 * with the equal share s = pool / n, every connection with b_i <= s gets b_i, and the excess is
 * added to the others in proportion to their b_i; one pushed above its b_i is capped there and
 * its surplus handed on the same way, until nothing moves.
 *
 * Worked example of the paper: demands 20 / 200 / 800, pool 300: 20 / 116 / 164.
 *
 * @param pool the pool, in the unit of @p demands (non-negative)
 * @param demands b_i of each connection (non-negative)
 * @param leftover what to do with the pool when every demand fits
 * @return the assignment of each connection, in the order of @p demands
 */
std::vector<double> ProportionalShares(double pool,
                                       const std::vector<double>& demands,
                                       Leftover leftover = Leftover::UNASSIGNED);

/**
 * @brief ABT's reassignment: max-min fair shares of the pool (MaxMinFairShares); when every
 * demand fits, the leftover as @p leftover says.
 * Worked example: demands 20 / 200 / 800, pool 300: 20 / 140 / 140.
 */
std::vector<double> MaxMinShares(double pool,
                                 const std::vector<double>& demands,
                                 Leftover leftover = Leftover::UNASSIGNED);

/**
 * @brief The fixed policy: @p fixed each, in the order given, while the pool lasts; a
 * connection that does not fit gets 0 (it is not admitted: a pool of 256 KB holds at most four
 * connections of 64 KB).
 */
std::vector<double> FixedShares(double pool, double fixed, std::size_t n);

} // namespace ns3

#endif /* SATNET_BUFFER_ALLOCATION_H */
