/*
 * File sizes of the modified SPECweb96 workload.
 */
#ifndef SATNET_SPECWEB_FILE_SIZE_H
#define SATNET_SPECWEB_FILE_SIZE_H

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class UniformRandomVariable;
class TruncatedPoissonRandomVariable;

/**
 * @brief Draws the size of a file requested from a WWW server (modified SPECweb96).
 *
 * A file belongs to class c (c = 0, 1, ...) with probability ClassProbabilities[c]; class c holds
 * nine sizes j x 10^(c-1) KB, j = 1..9, and j is Poisson(IndexMean) kept within 1..9 (redrawn,
 * see TruncatedPoissonRandomVariable). With the defaults the classes span 0.1-0.9 KB, 1-9 KB,
 * 10-90 KB, 100-900 KB and 1-9 MB and the mean file is about 118 KiB.
 *
 * A KB is KiloByte bytes, 1024 by default: the study's documents do not say, and SPECweb96
 * itself builds its classes from 1024 B (its class 0 files are multiples of 102.4 B). Class 0
 * sizes are then not whole bytes and are rounded to the nearest byte (102, 205, ..., 922 B).
 */
class SpecwebFileSize : public Object
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    SpecwebFileSize();

    static constexpr uint32_t kMinIndex = 1; //!< smallest size index j within a class
    static constexpr uint32_t kMaxIndex = 9; //!< largest size index j within a class

    /// @return a file size in bytes
    uint32_t DrawSize();

    /**
     * @param fileClass class c
     * @param index size index j in [1, 9]
     * @return j x 10^(c-1) KB in bytes, rounded to the nearest byte
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
    /// Aborts unless the class probabilities are a distribution.
    void CheckProbabilities() const;

    std::vector<double> m_classProbabilities;      //!< probability of each class
    uint32_t m_kiloByte;                           //!< bytes in a KB
    double m_indexMean;                            //!< Poisson mean of the size index j
    Ptr<UniformRandomVariable> m_classRv;          //!< draws the class
    Ptr<TruncatedPoissonRandomVariable> m_indexRv; //!< draws j
};

} // namespace ns3

#endif /* SATNET_SPECWEB_FILE_SIZE_H */
