#include "model/lognormal-document-size.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/rng-stream.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LognormalDocumentSize");
NS_OBJECT_ENSURE_REGISTERED(LognormalDocumentSize);

namespace
{

constexpr double kZ80 = 0.8416212335729143; //!< Phi^-1(0.8), the standard normal's 80% point

/// @return the standard normal's CDF at @p x
double
Phi(double x)
{
    return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

} // namespace

TypeId
LognormalDocumentSize::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::LognormalDocumentSize")
            .SetParent<RandomVariableStream>()
            .SetGroupName("Satnet")
            .AddConstructor<LognormalDocumentSize>()
            .AddAttribute("Mean",
                          "Mean of the lognormal before truncation, bytes (E3's documents: "
                          "below 10 KB).",
                          DoubleValue(10240),
                          MakeDoubleAccessor(&LognormalDocumentSize::m_mean),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Percentile80",
                          "Size four in five documents are smaller than, bytes, before "
                          "truncation (E3's documents: 8 KB).",
                          DoubleValue(8192),
                          MakeDoubleAccessor(&LognormalDocumentSize::m_percentile80),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Maximum",
                          "Largest size drawn, bytes: a draw above it is drawn again.",
                          DoubleValue(1 << 20),
                          MakeDoubleAccessor(&LognormalDocumentSize::m_maximum),
                          MakeDoubleChecker<double>(0));
    return tid;
}

LognormalDocumentSize::LognormalDocumentSize()
{
    NS_LOG_FUNCTION(this);
}

void
LognormalDocumentSize::CheckParameters() const
{
    NS_ABORT_MSG_UNLESS(m_percentile80 > 0 && m_mean > m_percentile80,
                        "LognormalDocumentSize: needs Mean > Percentile80 > 0 (got "
                            << m_mean << ", " << m_percentile80 << ")");
    NS_ABORT_MSG_UNLESS(m_maximum > m_percentile80,
                        "LognormalDocumentSize: needs Maximum > Percentile80");
}

double
LognormalDocumentSize::GetSigma() const
{
    CheckParameters();
    return kZ80 + std::sqrt(kZ80 * kZ80 + 2 * std::log(m_mean / m_percentile80));
}

double
LognormalDocumentSize::GetMu() const
{
    return std::log(m_percentile80) - kZ80 * GetSigma();
}

double
LognormalDocumentSize::GetTruncatedCdf(double bytes) const
{
    const double mu = GetMu();
    const double sigma = GetSigma();
    const double cut = (std::log(m_maximum) - mu) / sigma;
    if (bytes <= 0)
    {
        return 0;
    }
    return std::min(1.0, Phi((std::log(bytes) - mu) / sigma) / Phi(cut));
}

double
LognormalDocumentSize::GetTruncatedMean() const
{
    const double mu = GetMu();
    const double sigma = GetSigma();
    const double cut = (std::log(m_maximum) - mu) / sigma;
    return std::exp(mu + sigma * sigma / 2) * Phi(cut - sigma) / Phi(cut);
}

double
LognormalDocumentSize::Draw()
{
    double u = Peek()->RandU01();
    double v = Peek()->RandU01();
    if (IsAntithetic())
    {
        u = 1 - u;
        v = 1 - v;
    }
    // u is in (0, 1): its logarithm is finite.
    const double z = std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
    return std::exp(GetMu() + GetSigma() * z);
}

double
LognormalDocumentSize::GetValue()
{
    double size = Draw();
    while (size > m_maximum)
    {
        size = Draw();
    }
    return size;
}

uint32_t
LognormalDocumentSize::GetInteger()
{
    return static_cast<uint32_t>(std::max(1.0, std::round(GetValue())));
}

} // namespace ns3
