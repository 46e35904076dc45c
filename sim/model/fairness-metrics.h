/*
 * Per-run metrics of the WWW study: efficiency, max-min fair shares and the fairness index.
 * Plain C++ (no ns-3): the OMNeT++ model (omnetpp/goyal98/) computes its metrics with the same
 * code. Bad input (negative values, sizes that differ) throws std::invalid_argument.
 */
#ifndef SATNET_FAIRNESS_METRICS_H
#define SATNET_FAIRNESS_METRICS_H

#include <cstddef>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @brief Max-min fair shares of a link of @p capacity among servers asking for @p demands.
 *
 * share = C_left / servers_left; every server with S_i < share gets e_i = S_i and leaves,
 * C_left -= S_i; repeated until no remaining server is below the share; the rest get the share.
 * A server exactly at the share stays (it gets the share, i.e. its demand, either way). A zero
 * demand gets 0. If every demand fits, every server gets its demand and capacity is left over.
 * Demands and capacity must be in the same unit and non-negative.
 *
 * @param capacity link capacity C
 * @param demands demand S_i of each server
 * @return e_i for each server, in the order of @p demands (empty for empty input)
 */
inline std::vector<double>
MaxMinFairShares(double capacity, const std::vector<double>& demands)
{
    if (capacity < 0)
    {
        throw std::invalid_argument("negative capacity " + std::to_string(capacity));
    }
    for (double d : demands)
    {
        if (d < 0)
        {
            throw std::invalid_argument("negative demand " + std::to_string(d));
        }
    }
    std::vector<double> shares(demands.size(), 0.0);
    std::vector<bool> settled(demands.size(), false);
    double left = capacity;
    std::size_t serversLeft = demands.size();
    bool someoneLeft = true;
    while (serversLeft > 0 && someoneLeft)
    {
        // Everyone below the share of this round leaves at once, as the definition says.
        const double share = left / serversLeft;
        someoneLeft = false;
        for (std::size_t i = 0; i < demands.size(); ++i)
        {
            if (!settled[i] && demands[i] < share)
            {
                shares[i] = demands[i];
                settled[i] = true;
                left -= demands[i];
                --serversLeft;
                someoneLeft = true;
            }
        }
    }
    if (serversLeft > 0)
    {
        const double share = left / serversLeft;
        for (std::size_t i = 0; i < demands.size(); ++i)
        {
            if (!settled[i])
            {
                shares[i] = share;
            }
        }
    }
    return shares;
}

/**
 * @brief Fairness index F = (sum r_i)^2 / (N * sum r_i^2) with r_i = x_i / e_i.
 *
 * Connections with e_i == 0 (no demand) have no fair share to measure against: they are left
 * out and N counts only the connections included. When no connection is included, or every
 * included x_i is 0, all included connections got the same fraction of their share and F is 1
 * (the efficiency shows such a run is empty).
 *
 * @param throughput x_i of each connection (same unit as @p fairShare, non-negative)
 * @param fairShare e_i of each connection, as from MaxMinFairShares
 * @return F in (0, 1]
 */
inline double
FairnessIndex(const std::vector<double>& throughput, const std::vector<double>& fairShare)
{
    if (throughput.size() != fairShare.size())
    {
        throw std::invalid_argument("throughput and fair share sizes differ: " +
                                    std::to_string(throughput.size()) + " vs " +
                                    std::to_string(fairShare.size()));
    }
    double sum = 0;
    double sumSquares = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < throughput.size(); ++i)
    {
        if (throughput[i] < 0 || fairShare[i] < 0)
        {
            throw std::invalid_argument("negative throughput or fair share at " +
                                        std::to_string(i));
        }
        if (fairShare[i] == 0)
        {
            continue;
        }
        const double ratio = throughput[i] / fairShare[i];
        sum += ratio;
        sumSquares += ratio * ratio;
        ++n;
    }
    if (sumSquares == 0)
    {
        return 1.0;
    }
    return sum * sum / (n * sumSquares);
}

/**
 * @brief Efficiency E = sum(x_i) / C.
 *
 * @param throughput x_i of each connection
 * @param capacity C, in the unit of @p throughput, positive
 * @return E
 */
inline double
Efficiency(const std::vector<double>& throughput, double capacity)
{
    if (capacity <= 0)
    {
        throw std::invalid_argument("capacity must be positive, got " + std::to_string(capacity));
    }
    return std::accumulate(throughput.begin(), throughput.end(), 0.0) / capacity;
}

} // namespace ns3

#endif /* SATNET_FAIRNESS_METRICS_H */
