/*
 * A small ordered JSON value: what a program's --describe and its result are made of.
 */
#ifndef SATSWEEP_JSON_H
#define SATSWEEP_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace satsweep
{

/**
 * @brief A JSON value whose objects keep their keys in insertion order.
 *
 * Integers keep their C++ signedness (int64_t or uint64_t), so counters up to 2^64 - 1 print
 * exactly; doubles print as the shortest text that reads back as the same double, and a
 * non-finite double becomes null.
 */
class Json
{
  public:
    using Array = std::vector<Json>;                          //!< a JSON array
    using Object = std::vector<std::pair<std::string, Json>>; //!< a JSON object, ordered

    Json();                  //!< null
    Json(bool value);        //!< true / false
    Json(double value);      //!< number (non-finite becomes null)
    Json(int64_t value);     //!< integer
    Json(uint64_t value);    //!< integer
    Json(uint32_t value);    //!< integer
    Json(int value);         //!< integer
    Json(std::string value); //!< string
    Json(const char* value); //!< string
    Json(Array value);       //!< array
    Json(Object value);      //!< object

    /// Adds @p key to an object value (keys are not checked for duplicates).
    Json& Set(const std::string& key, Json value);
    /// Appends to an array value.
    Json& Push(Json value);

    bool IsNull() const;    //!< @return whether the value is null
    bool IsBool() const;    //!< @return whether the value is true or false
    bool IsInteger() const; //!< @return whether the value is an integer (signed or not)
    bool IsNumber() const;  //!< @return whether the value is an integer or a double
    bool IsString() const;  //!< @return whether the value is a string
    bool IsArray() const;   //!< @return whether the value is an array
    bool IsObject() const;  //!< @return whether the value is an object

    /// @return the boolean (the value must be one)
    bool GetBool() const;
    /// @return the number as a double (the value must be a number)
    double GetDouble() const;
    /// @return the integer converted to int64_t (the value must be an integer)
    int64_t GetInt64() const;
    /// @return the integer converted to uint64_t (the value must be an integer)
    uint64_t GetUint64() const;
    /// @return the integer, exactly (the value must be an integer)
    long double GetIntegerExact() const;
    /// @return the string (the value must be one)
    const std::string& GetString() const;
    /// @return the elements (the value must be an array)
    const Array& GetArray() const;
    /// @return the members in order (the value must be an object)
    const Object& GetObject() const;
    /// @return the member @p key of an object, or nullptr when absent or not an object
    const Json* Find(const std::string& key) const;

    /// @return "null", "bool", "integer", "number", "string", "array" or "object"
    std::string GetTypeName() const;

    /**
     * @return the compact text, or indented by @p indent spaces per level when > 0
     * @param indent spaces per level; 0 for one line without spaces
     */
    std::string Dump(int indent = 0) const;

    /// @return whether both are the same value; an integer equals a double of the same value
    bool operator==(const Json& other) const;

  private:
    /// Appends the text of this value at nesting @p depth to @p out.
    void DumpTo(std::string& out, int indent, int depth) const;

    /// The value: one of JSON's kinds, integers split by signedness.
    std::variant<std::nullptr_t, bool, double, int64_t, uint64_t, std::string, Array, Object>
        m_value;
};

/// @return the mean of @p values, null for none: a result's mean of nothing measured
Json MeanOrNull(const std::vector<double>& values);

} // namespace satsweep

#endif /* SATSWEEP_JSON_H */
