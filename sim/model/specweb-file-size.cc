#include "specweb-file-size.h"

#include "truncated-poisson-random-variable.h"

#include "ns3/abort.h"
#include "ns3/attribute-container.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

#include <cmath>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("SpecwebFileSize");

NS_OBJECT_ENSURE_REGISTERED(SpecwebFileSize);

namespace
{
/// The attribute type of a list of probabilities.
using ProbabilityList = AttributeContainerValue<DoubleValue, ',', std::vector>;
} // namespace

TypeId
SpecwebFileSize::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::SpecwebFileSize")
            .SetParent<Object>()
            .SetGroupName("Satnet")
            .AddConstructor<SpecwebFileSize>()
            .AddAttribute(
                "ClassProbabilities",
                "Probability of each file class c = 0, 1, ...; class c holds sizes j x 10^(c-1) "
                "KB, j = 1..9. Comma-separated, must sum to 1.",
                ProbabilityList(std::vector<double>{0.20, 0.28, 0.40, 0.112, 0.008}),
                MakeAttributeContainerAccessor<DoubleValue, ',', std::vector>(
                    &SpecwebFileSize::m_classProbabilities),
                MakeAttributeContainerChecker<DoubleValue, ',', std::vector>(
                    MakeDoubleChecker<double>(0.0, 1.0)))
            .AddAttribute("KiloByte",
                          "Bytes in one KB of the file classes.",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&SpecwebFileSize::m_kiloByte),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("IndexMean",
                          "Mean of the Poisson distribution of the size index j within a class "
                          "(kept within 1..9 by redrawing).",
                          DoubleValue(5.0),
                          MakeDoubleAccessor(&SpecwebFileSize::m_indexMean),
                          MakeDoubleChecker<double>(0.0));
    return tid;
}

SpecwebFileSize::SpecwebFileSize()
    : m_classRv(CreateObject<UniformRandomVariable>()),
      m_indexRv(CreateObject<TruncatedPoissonRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

void
SpecwebFileSize::DoDispose()
{
    m_classRv = nullptr;
    m_indexRv = nullptr;
    Object::DoDispose();
}

uint32_t
SpecwebFileSize::DrawSize()
{
    CheckProbabilities();
    const double u = m_classRv->GetValue();
    uint32_t fileClass = 0;
    double cumulative = m_classProbabilities[0];
    // A u beyond the rounded total falls in the last class.
    while (u >= cumulative && fileClass + 1 < m_classProbabilities.size())
    {
        ++fileClass;
        cumulative += m_classProbabilities[fileClass];
    }
    const uint32_t index = m_indexRv->GetInteger(m_indexMean, kMinIndex, kMaxIndex);
    const uint32_t size = GetSize(fileClass, index);
    NS_LOG_LOGIC("class " << fileClass << " index " << index << " size " << size);
    return size;
}

uint32_t
SpecwebFileSize::GetSize(uint32_t fileClass, uint32_t index) const
{
    NS_ABORT_MSG_IF(index < kMinIndex || index > kMaxIndex, "size index out of range: " << index);
    // j x KB x 10^c / 10 in integers, rounded half up.
    uint64_t tenths = static_cast<uint64_t>(index) * m_kiloByte;
    for (uint32_t c = 0; c < fileClass; ++c)
    {
        tenths *= 10;
    }
    const uint64_t size = (tenths + 5) / 10;
    NS_ABORT_MSG_IF(size > UINT32_MAX, "file size overflows 32 bits: class " << fileClass);
    return static_cast<uint32_t>(size);
}

uint32_t
SpecwebFileSize::GetClassCount() const
{
    return m_classProbabilities.size();
}

double
SpecwebFileSize::GetMean() const
{
    CheckProbabilities();
    double mean = 0;
    for (uint32_t c = 0; c < m_classProbabilities.size(); ++c)
    {
        for (uint32_t j = kMinIndex; j <= kMaxIndex; ++j)
        {
            mean += m_classProbabilities[c] *
                    TruncatedPoissonRandomVariable::Probability(j,
                                                                m_indexMean,
                                                                kMinIndex,
                                                                kMaxIndex,
                                                                m_indexRv->GetBounds()) *
                    GetSize(c, j);
        }
    }
    return mean;
}

int64_t
SpecwebFileSize::AssignStreams(int64_t stream)
{
    m_classRv->SetStream(stream);
    m_indexRv->SetStream(stream + 1);
    return 2;
}

void
SpecwebFileSize::CheckProbabilities() const
{
    NS_ABORT_MSG_IF(m_classProbabilities.empty(), "no file classes");
    const double total =
        std::accumulate(m_classProbabilities.begin(), m_classProbabilities.end(), 0.0);
    NS_ABORT_MSG_IF(std::abs(total - 1.0) > 1e-9, "class probabilities sum to " << total);
}

} // namespace ns3
