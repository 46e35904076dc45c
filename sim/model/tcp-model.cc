#include "model/tcp-model.h"

namespace ns3
{

std::optional<TcpModel>
ParseTcpModel(const std::string& name)
{
    for (TcpModel m : {TcpModel::NS3, TcpModel::NS2})
    {
        if (ToString(m) == name)
        {
            return m;
        }
    }
    return std::nullopt;
}

std::string
ToString(TcpModel model)
{
    return model == TcpModel::NS2 ? "ns2" : "ns3";
}

Ptr<const AttributeChecker>
MakeTcpModelChecker()
{
    return MakeEnumChecker(TcpModel::NS3, "ns3", TcpModel::NS2, "ns2");
}

} // namespace ns3
