/*
 * AAL5 reassembly at a receiving host: a frame that lost cells fails its CRC and is discarded.
 */
#ifndef SATNET_AAL5_REASSEMBLY_ERROR_MODEL_H
#define SATNET_AAL5_REASSEMBLY_ERROR_MODEL_H

#include "ns3/error-model.h"

namespace ns3
{

/**
 * @brief Receive error model of a host's ATM interface that discards partial frames.
 *
 * Installed as a PointToPointNetDevice's ReceiveErrorModel, it drops every frame whose
 * AtmFrameTag says cells were lost on the way (partial packet discard or tail drop upstream).
 * Nothing else is corrupted: the links are error free.
 */
class Aal5ReassemblyErrorModel : public ErrorModel
{
  public:
    /// @return the object TypeId
    static TypeId GetTypeId();

    Aal5ReassemblyErrorModel();

    /// @return frames discarded at reassembly so far
    uint64_t GetLostFrames() const;

  private:
    bool DoCorrupt(Ptr<Packet> packet) override;
    void DoReset() override;

    uint64_t m_lostFrames;
};

} // namespace ns3

#endif /* SATNET_AAL5_REASSEMBLY_ERROR_MODEL_H */
