#include "fairness-metrics.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FairnessMetrics");

std::vector<double>
MaxMinFairShares(double capacity, const std::vector<double>& demands)
{
    NS_ABORT_MSG_IF(capacity < 0, "negative capacity " << capacity);
    std::vector<double> shares(demands.size(), 0.0);
    std::vector<bool> settled(demands.size(), false);
    double left = capacity;
    std::size_t serversLeft = demands.size();
    for (double d : demands)
    {
        NS_ABORT_MSG_IF(d < 0, "negative demand " << d);
    }

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
        NS_LOG_LOGIC("share " << share << " capacity left " << left << " servers left "
                              << serversLeft);
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

double
FairnessIndex(const std::vector<double>& throughput, const std::vector<double>& fairShare)
{
    NS_ABORT_MSG_IF(throughput.size() != fairShare.size(),
                    "throughput and fair share sizes differ: " << throughput.size() << " vs "
                                                               << fairShare.size());
    double sum = 0;
    double sumSquares = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < throughput.size(); ++i)
    {
        NS_ABORT_MSG_IF(throughput[i] < 0 || fairShare[i] < 0,
                        "negative throughput or fair share at " << i);
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

double
Efficiency(const std::vector<double>& throughput, double capacity)
{
    NS_ABORT_MSG_IF(capacity <= 0, "capacity must be positive, got " << capacity);
    return std::accumulate(throughput.begin(), throughput.end(), 0.0) / capacity;
}

} // namespace ns3
