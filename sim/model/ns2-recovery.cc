#include "model/ns2-recovery.h"

#include "model/ns2-newreno-recovery.h"
#include "model/ns2-reno-recovery.h"
#include "model/ns2-sack-recovery.h"
#include "model/ns2-vanilla-recovery.h"

#include "ns3/abort.h"

namespace ns3
{

std::unique_ptr<Ns2Recovery>
Ns2Recovery::Create(TcpFlavor flavor)
{
    switch (flavor)
    {
    case TcpFlavor::VANILLA:
        return std::make_unique<Ns2VanillaRecovery>();
    case TcpFlavor::RENO:
        return std::make_unique<Ns2RenoRecovery>();
    case TcpFlavor::NEWRENO:
        return std::make_unique<Ns2NewRenoRecovery>();
    case TcpFlavor::SACK:
        return std::make_unique<Ns2SackRecovery>();
    }
    NS_ABORT_MSG("Ns2Recovery: unknown flavor " << static_cast<int>(flavor));
}

bool
Ns2Recovery::TakeSackBlocks(const TcpHeader& /* ack */)
{
    return false;
}

uint32_t
Ns2Recovery::WindowInflation() const
{
    return 0;
}

std::optional<uint64_t>
Ns2Recovery::RecoveryWindow(const Ns2TcpSocket& /* sender */, uint64_t /* outstanding */) const
{
    return std::nullopt;
}

void
Ns2Recovery::SegmentSent(bool /* bySendMuch */)
{
}

void
Ns2Recovery::Timeout(Ns2TcpSocket& /* sender */)
{
}

void
Ns2Recovery::IdleRestart()
{
}

} // namespace ns3
