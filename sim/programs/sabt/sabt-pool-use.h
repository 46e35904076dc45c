/*
 * sabt's measure of the send-buffer pool's use, shared by the simulated scenarios and e3.
 */
#ifndef SABT_POOL_USE_H
#define SABT_POOL_USE_H

#include "model/send-buffer-manager.h"

#include <vector>

namespace sabt
{

/**
 * The pool's use at each measured reassignment: the buffer assigned to the running
 * connections and the bytes they have sent unacknowledged, each as a fraction of the pool.
 */
class PoolUse
{
  public:
    /// Records one reassignment: @p assigned, the buffer of the running connections (bytes,
    /// summed by the caller in its own order, which fixes the rounding), and the manager's
    /// unacknowledged bytes, both over its pool.
    void Sample(double assigned, const ns3::SendBufferManager& manager);

    /// @return assigned / pool at each sample
    const std::vector<double>& Assigned() const;
    /// @return unacknowledged / pool at each sample
    const std::vector<double>& Used() const;

  private:
    std::vector<double> m_assigned;
    std::vector<double> m_used;
};

} // namespace sabt

#endif /* SABT_POOL_USE_H */
