/*
 * File sizes of the modified SPECweb96 workload, drawn from ns-3 streams. The distribution is the
 * plain-C++ SpecwebSizeDistribution, shared with the OMNeT++ model.
 */
#ifndef SATNET_SPECWEB_FILE_SIZE_H
#define SATNET_SPECWEB_FILE_SIZE_H

#include "model/specweb-size-distribution.h"

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class UniformRandomVariable;
class TruncatedPoissonRandomVariable;

/**
 * @brief Draws the size of a file requested from a WWW server: SpecwebSizeDistribution
 * (model/specweb-size-distribution.h) with its parameters as attributes, the class drawn from
 * one stream and the size index from another (a TruncatedPoissonRandomVariable, whose Bounds
 * apply).
 */
class SpecwebFileSize : public Object
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    SpecwebFileSize();

    /// @return a file size in bytes
    uint32_t DrawSize();

    /**
     * @param fileClass class c
     * @param index size index j in [1, 9]
     * @return j x 10^(c-1) KB in bytes, rounded half up to a whole byte
     */
    uint32_t GetSize(uint32_t fileClass, uint32_t index) const;

    /// @return the number of classes
    uint32_t GetClassCount() const;

    /// @return the analytic mean file size in bytes (of the rounded sizes)
    double GetMean() const;

    /**
     * @brief Use fixed random streams.
     * @param stream first stream index to use
     * @return the number of streams used (2)
     */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    /// @return the distribution of the attributes' values (throws unless they form one)
    SpecwebSizeDistribution GetDistribution() const;

    std::vector<double> m_classProbabilities;      //!< probability of each class
    uint32_t m_kiloByte;                           //!< bytes in a KB
    double m_indexMean;                            //!< Poisson mean of the size index j
    Ptr<UniformRandomVariable> m_classRv;          //!< draws the class
    Ptr<TruncatedPoissonRandomVariable> m_indexRv; //!< draws j
};

} // namespace ns3

#endif /* SATNET_SPECWEB_FILE_SIZE_H */
