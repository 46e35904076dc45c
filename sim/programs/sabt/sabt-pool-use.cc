#include "sabt-pool-use.h"

namespace sabt
{

void
PoolUse::Sample(double assigned, const ns3::SendBufferManager& manager)
{
    const double pool = static_cast<double>(manager.GetPool());
    m_assigned.push_back(assigned / pool);
    m_used.push_back(manager.GetUnacknowledged() / pool);
}

const std::vector<double>&
PoolUse::Assigned() const
{
    return m_assigned;
}

const std::vector<double>&
PoolUse::Used() const
{
    return m_used;
}

} // namespace sabt
