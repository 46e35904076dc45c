#include "truncated-poisson-random-variable.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/rng-stream.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <numeric>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TruncatedPoissonRandomVariable");

NS_OBJECT_ENSURE_REGISTERED(TruncatedPoissonRandomVariable);

namespace
{

/**
 * Unnormalised weights of k = min..max: the Poisson weights lambda^k / k! (e^-lambda cancels
 * out); with CLAMP, min's weight also holds those below it and max's those above it (the
 * weights of all k sum to e^lambda).
 */
std::vector<double>
Weights(double mean, uint32_t min, uint32_t max, TruncatedPoissonRandomVariable::Bounds bounds)
{
    NS_ABORT_MSG_IF(mean <= 0, "Poisson mean must be positive, got " << mean);
    NS_ABORT_MSG_IF(min > max, "empty range [" << min << ", " << max << "]");
    const bool clamp = bounds == TruncatedPoissonRandomVariable::CLAMP;
    std::vector<double> weights;
    weights.reserve(max - min + 1);
    double w = 1.0;     // k = 0
    double below = 0.0; // weights of 0..k-1
    for (uint32_t k = 0; k <= max; ++k)
    {
        if (k > 0)
        {
            w *= mean / k;
        }
        if (k == min && clamp)
        {
            weights.push_back(below + w);
        }
        else if (k >= min)
        {
            weights.push_back(w);
        }
        below += w;
    }
    if (clamp && max > min)
    {
        weights.back() = std::exp(mean) - (below - w); // P(K >= max), unnormalised
    }
    else if (clamp)
    {
        weights.back() = std::exp(mean); // min == max: everything
    }
    return weights;
}

} // namespace

TypeId
TruncatedPoissonRandomVariable::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TruncatedPoissonRandomVariable")
            .SetParent<RandomVariableStream>()
            .SetGroupName("Satnet")
            .AddConstructor<TruncatedPoissonRandomVariable>()
            .AddAttribute("Mean",
                          "Mean of the Poisson distribution before truncation.",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&TruncatedPoissonRandomVariable::m_mean),
                          MakeDoubleChecker<double>(0.0))
            .AddAttribute("Min",
                          "Smallest value drawn.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TruncatedPoissonRandomVariable::m_min),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Max",
                          "Largest value drawn.",
                          UintegerValue(9),
                          MakeUintegerAccessor(&TruncatedPoissonRandomVariable::m_max),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Bounds",
                          "How a value outside [Min, Max] is kept within: Redraw (the "
                          "distribution conditioned on the range) or Clamp (moved to the nearer "
                          "bound).",
                          EnumValue(REDRAW),
                          MakeEnumAccessor<Bounds>(&TruncatedPoissonRandomVariable::m_bounds),
                          MakeEnumChecker(REDRAW, "Redraw", CLAMP, "Clamp"));
    return tid;
}

TruncatedPoissonRandomVariable::TruncatedPoissonRandomVariable()
{
    NS_LOG_FUNCTION(this);
}

double
TruncatedPoissonRandomVariable::GetMean() const
{
    return m_mean;
}

uint32_t
TruncatedPoissonRandomVariable::GetMin() const
{
    return m_min;
}

uint32_t
TruncatedPoissonRandomVariable::GetMax() const
{
    return m_max;
}

TruncatedPoissonRandomVariable::Bounds
TruncatedPoissonRandomVariable::GetBounds() const
{
    return m_bounds;
}

uint32_t
TruncatedPoissonRandomVariable::GetInteger(double mean, uint32_t min, uint32_t max)
{
    const std::vector<double> weights = Weights(mean, min, max, m_bounds);
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    NS_ABORT_MSG_IF(!std::isfinite(total) || total <= 0,
                    "Poisson weights out of range for mean " << mean);

    double u = Peek()->RandU01();
    if (IsAntithetic())
    {
        u = 1 - u;
    }
    double target = u * total;
    for (std::size_t i = 0; i + 1 < weights.size(); ++i)
    {
        if (target < weights[i])
        {
            return min + i;
        }
        target -= weights[i];
    }
    // Rounding may leave a sliver of u beyond the last weight: it belongs to max.
    return max;
}

double
TruncatedPoissonRandomVariable::Probability(uint32_t k,
                                            double mean,
                                            uint32_t min,
                                            uint32_t max,
                                            Bounds bounds)
{
    if (k < min || k > max)
    {
        return 0.0;
    }
    const std::vector<double> weights = Weights(mean, min, max, bounds);
    return weights[k - min] / std::accumulate(weights.begin(), weights.end(), 0.0);
}

double
TruncatedPoissonRandomVariable::ExpectedValue(double mean,
                                              uint32_t min,
                                              uint32_t max,
                                              Bounds bounds)
{
    double expected = 0;
    for (uint32_t k = min; k <= max; ++k)
    {
        expected += k * Probability(k, mean, min, max, bounds);
    }
    return expected;
}

double
TruncatedPoissonRandomVariable::GetValue()
{
    return GetInteger(m_mean, m_min, m_max);
}

uint32_t
TruncatedPoissonRandomVariable::GetInteger()
{
    return GetInteger(m_mean, m_min, m_max);
}

} // namespace ns3
