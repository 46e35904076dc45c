/*
 * Per-run metrics of the WWW study: efficiency, max-min fair shares and the fairness index.
 */
#ifndef SATNET_FAIRNESS_METRICS_H
#define SATNET_FAIRNESS_METRICS_H

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
std::vector<double> MaxMinFairShares(double capacity, const std::vector<double>& demands);

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
double FairnessIndex(const std::vector<double>& throughput, const std::vector<double>& fairShare);

/**
 * @brief Efficiency E = sum(x_i) / C.
 *
 * @param throughput x_i of each connection
 * @param capacity C, in the unit of @p throughput, positive
 * @return E
 */
double Efficiency(const std::vector<double>& throughput, double capacity);

} // namespace ns3

#endif /* SATNET_FAIRNESS_METRICS_H */
