/*
 * The value types of the engine contract: int, float, string, bool.
 */
#ifndef SATSWEEP_VALUE_TYPE_H
#define SATSWEEP_VALUE_TYPE_H

#include "json.h"

#include <string>

namespace satsweep
{

/**
 * @brief Type of a parameter, summary field or table column, as --describe names it.
 *
 * JSON does not tell 1 from 1.0, so the declared type is what a reader goes by.
 */
enum class ValueType
{
    INT,    //!< integer ("int")
    FLOAT,  //!< real number ("float")
    STRING, //!< text ("string")
    BOOL,   //!< true or false ("bool")
};

/// @return "int", "float", "string" or "bool"
std::string ToString(ValueType type);

/**
 * @brief Whether @p value is a value of @p type or null.
 *
 * An int must be a JSON integer; a float may be any number (a program may compute it as an
 * integer); a string a string; a bool true or false.
 *
 * @param value the value
 * @param type the declared type
 * @return whether @p value may stand for @p type
 */
bool IsOfType(const Json& value, ValueType type);

} // namespace satsweep

#endif /* SATSWEEP_VALUE_TYPE_H */
