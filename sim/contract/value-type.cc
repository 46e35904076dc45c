#include "value-type.h"

namespace satsweep
{

std::string
ToString(ValueType type)
{
    switch (type)
    {
    case ValueType::INT:
        return "int";
    case ValueType::FLOAT:
        return "float";
    case ValueType::STRING:
        return "string";
    case ValueType::BOOL:
        return "bool";
    }
    return "?";
}

bool
IsOfType(const Json& value, ValueType type)
{
    if (value.IsNull())
    {
        return true;
    }
    switch (type)
    {
    case ValueType::INT:
        return value.IsInteger();
    case ValueType::FLOAT:
        return value.IsNumber();
    case ValueType::STRING:
        return value.IsString();
    case ValueType::BOOL:
        return value.IsBool();
    }
    return false;
}

} // namespace satsweep
