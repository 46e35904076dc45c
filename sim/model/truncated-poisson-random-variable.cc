#include "truncated-poisson-random-variable.h"

#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/rng-stream.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TruncatedPoissonRandomVariable");

NS_OBJECT_ENSURE_REGISTERED(TruncatedPoissonRandomVariable);

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
                          EnumValue(TruncatedPoisson::REDRAW),
                          MakeEnumAccessor<Bounds>(&TruncatedPoissonRandomVariable::m_bounds),
                          MakeEnumChecker(TruncatedPoisson::REDRAW,
                                          "Redraw",
                                          TruncatedPoisson::CLAMP,
                                          "Clamp"));
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
    double u = Peek()->RandU01();
    if (IsAntithetic())
    {
        u = 1 - u;
    }
    return TruncatedPoisson::Quantile(u, mean, min, max, m_bounds);
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
