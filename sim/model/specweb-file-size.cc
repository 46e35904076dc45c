#include "specweb-file-size.h"

#include "truncated-poisson-random-variable.h"

#include "ns3/attribute-container.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/random-variable-stream.h"
#include "ns3/uinteger.h"

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
                          "(kept within 1..9 as the index variable's Bounds say).",
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

SpecwebSizeDistribution
SpecwebFileSize::GetDistribution() const
{
    const SpecwebSizeDistribution distribution{m_classProbabilities,
                                               m_kiloByte,
                                               m_indexMean,
                                               m_indexRv->GetBounds()};
    distribution.Check();
    return distribution;
}

uint32_t
SpecwebFileSize::DrawSize()
{
    const SpecwebSizeDistribution distribution = GetDistribution();
    const uint32_t fileClass = distribution.ClassFor(m_classRv->GetValue());
    const uint32_t index = m_indexRv->GetInteger(m_indexMean,
                                                 SpecwebSizeDistribution::kMinIndex,
                                                 SpecwebSizeDistribution::kMaxIndex);
    const uint32_t size = distribution.Size(fileClass, index);
    NS_LOG_LOGIC("class " << fileClass << " index " << index << " size " << size);
    return size;
}

uint32_t
SpecwebFileSize::GetSize(uint32_t fileClass, uint32_t index) const
{
    return GetDistribution().Size(fileClass, index);
}

uint32_t
SpecwebFileSize::GetClassCount() const
{
    return m_classProbabilities.size();
}

double
SpecwebFileSize::GetMean() const
{
    return GetDistribution().Mean();
}

int64_t
SpecwebFileSize::AssignStreams(int64_t stream)
{
    m_classRv->SetStream(stream);
    m_indexRv->SetStream(stream + 1);
    return 2;
}

} // namespace ns3
