/*
 * Web document sizes: a lognormal fixed by its mean and its 80th percentile, truncated.
 */
#ifndef SATNET_LOGNORMAL_DOCUMENT_SIZE_H
#define SATNET_LOGNORMAL_DOCUMENT_SIZE_H

#include "ns3/random-variable-stream.h"

#include <cstdint>

namespace ns3
{

/**
 * @brief Sizes of the documents a web server is asked for, in bytes: a lognormal whose mean is
 * Mean and whose 80th percentile is Percentile80, conditioned on at most Maximum (a draw above
 * is drawn again), rounded to a whole byte and at least one.
 *
 * The SABT study's E3 (docs/studies/sabt.md) states two facts of the web documents it drew
 * from (its ref. [4]): four in five are smaller than 8 KB, and their mean is below 10 KB. The
 * lognormal's mu and sigma follow from the two: with z = Phi^-1(0.8),
 *
 *     mu + z sigma = ln Percentile80,   mu + sigma^2 / 2 = ln Mean,
 *
 * so sigma = z + sqrt(z^2 + 2 ln(Mean / Percentile80)), the one positive root when Mean >
 * Percentile80 (a right-skewed distribution, as web sizes are; the attributes are checked when
 * drawn). Mean 10240 and Percentile80 8192 give sigma = 1.916, mu = 7.398 (median 1633 bytes);
 * truncated at 1 MiB the mean is 9501 bytes and P(size <= 8192) 0.8003 (GetTruncatedMean(),
 * GetTruncatedCdf()).
 *
 * Each untruncated draw takes two U(0,1) of the stream (Box-Muller; antithetic if asked).
 */
class LognormalDocumentSize : public RandomVariableStream
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    LognormalDocumentSize();

    /// @return mu, the mean of ln(size) before truncation
    double GetMu() const;
    /// @return sigma, the standard deviation of ln(size) before truncation
    double GetSigma() const;
    /// @return the mean of the sizes drawn (truncated, before rounding), bytes
    double GetTruncatedMean() const;
    /**
     * @param bytes a size
     * @return the probability that a size drawn (before rounding) is at most @p bytes
     */
    double GetTruncatedCdf(double bytes) const;

    double GetValue() override;
    uint32_t GetInteger() override;

  private:
    /// Aborts unless Mean > Percentile80 > 0 and Maximum > Percentile80.
    void CheckParameters() const;
    /// @return one untruncated lognormal draw
    double Draw();

    double m_mean;         //!< mean before truncation, bytes
    double m_percentile80; //!< 80th percentile before truncation, bytes
    double m_maximum;      //!< largest size drawn, bytes
};

} // namespace ns3

#endif /* SATNET_LOGNORMAL_DOCUMENT_SIZE_H */
