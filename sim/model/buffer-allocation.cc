#include "model/buffer-allocation.h"

#include "model/fairness-metrics.h"

#include "ns3/abort.h"
#include "ns3/enum.h"

#include <numeric>

namespace ns3
{

std::optional<BufferAlgorithm>
ParseBufferAlgorithm(const std::string& name)
{
    for (BufferAlgorithm a :
         {BufferAlgorithm::EQ, BufferAlgorithm::ABT, BufferAlgorithm::SABT, BufferAlgorithm::FIXED})
    {
        if (ToString(a) == name)
        {
            return a;
        }
    }
    return std::nullopt;
}

std::string
ToString(BufferAlgorithm algorithm)
{
    switch (algorithm)
    {
    case BufferAlgorithm::EQ:
        return "eq";
    case BufferAlgorithm::ABT:
        return "abt";
    case BufferAlgorithm::SABT:
        return "sabt";
    case BufferAlgorithm::FIXED:
        return "fixed";
    }
    return "";
}

Ptr<const AttributeChecker>
MakeBufferAlgorithmChecker()
{
    return MakeEnumChecker(BufferAlgorithm::EQ,
                           "eq",
                           BufferAlgorithm::ABT,
                           "abt",
                           BufferAlgorithm::SABT,
                           "sabt",
                           BufferAlgorithm::FIXED,
                           "fixed");
}

Ptr<const AttributeChecker>
MakeLeftoverChecker()
{
    return MakeEnumChecker(Leftover::UNASSIGNED,
                           "unassigned",
                           Leftover::PROPORTIONAL,
                           "proportional");
}

namespace
{

/// @return @p demands scaled up to fill @p pool (they all fit), or as they are
std::vector<double>
WithLeftover(double pool, const std::vector<double>& demands, Leftover leftover)
{
    const double sum = std::accumulate(demands.begin(), demands.end(), 0.0);
    if (leftover == Leftover::UNASSIGNED || sum <= 0)
    {
        return demands;
    }
    std::vector<double> shares;
    for (double d : demands)
    {
        shares.push_back(d * pool / sum);
    }
    return shares;
}

} // namespace

std::vector<double>
ProportionalShares(double pool, const std::vector<double>& demands, Leftover leftover)
{
    NS_ABORT_MSG_IF(pool < 0, "negative pool " << pool);
    for (double d : demands)
    {
        NS_ABORT_MSG_IF(d < 0, "negative demand " << d);
    }
    if (std::accumulate(demands.begin(), demands.end(), 0.0) <= pool)
    {
        return WithLeftover(pool, demands, leftover);
    }
    const std::size_t n = demands.size();
    const double share = pool / n;
    std::vector<double> shares(n);
    std::vector<bool> capped(n, false);
    double excess = 0;
    for (std::size_t i = 0; i < n; ++i)
    {
        capped[i] = demands[i] <= share;
        shares[i] = capped[i] ? demands[i] : share;
        excess += share - shares[i];
    }
    // Each round hands the excess to the uncapped in proportion to their demands; whoever it
    // lifts above its demand is capped and returns the surplus. The demands exceed the pool,
    // so someone stays uncapped and every round caps at least one or ends.
    while (excess > 0)
    {
        double weight = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            weight += capped[i] ? 0 : demands[i];
        }
        if (weight <= 0)
        {
            break; // rounding capped everyone: the pool is handed out to within it
        }
        const double handed = excess;
        excess = 0;
        for (std::size_t i = 0; i < n; ++i)
        {
            if (capped[i])
            {
                continue;
            }
            shares[i] += handed * demands[i] / weight;
            if (shares[i] >= demands[i])
            {
                excess += shares[i] - demands[i];
                shares[i] = demands[i];
                capped[i] = true;
            }
        }
    }
    return shares;
}

std::vector<double>
MaxMinShares(double pool, const std::vector<double>& demands, Leftover leftover)
{
    if (std::accumulate(demands.begin(), demands.end(), 0.0) <= pool)
    {
        return WithLeftover(pool, demands, leftover);
    }
    return MaxMinFairShares(pool, demands);
}

std::vector<double>
FixedShares(double pool, double fixed, std::size_t n)
{
    NS_ABORT_MSG_IF(pool < 0 || fixed < 0, "negative pool " << pool << " or buffer " << fixed);
    std::vector<double> shares(n, 0.0);
    double left = pool;
    for (std::size_t i = 0; i < n && fixed <= left; ++i)
    {
        shares[i] = fixed;
        left -= fixed;
    }
    return shares;
}

} // namespace ns3
