/*
 * A small ordered JSON value, enough for satnet's one result object.
 */
#ifndef SATNET_JSON_H
#define SATNET_JSON_H

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace satnet
{

/// A JSON value whose objects keep their keys in insertion order.
class Json
{
  public:
    using Array = std::vector<Json>;
    using Object = std::vector<std::pair<std::string, Json>>;

    Json();                               //!< null
    Json(bool value);                     //!< true / false
    Json(double value);                   //!< number (non-finite becomes null)
    Json(int64_t value);                  //!< integer
    Json(uint64_t value);                 //!< integer
    Json(uint32_t value);                 //!< integer
    Json(int value);                      //!< integer
    Json(std::string value);              //!< string
    Json(const char* value);              //!< string
    Json(Array value);                    //!< array
    Json(Object value);                   //!< object

    /// Adds @p key to an object value (keys are not checked for duplicates).
    Json& Set(const std::string& key, Json value);
    /// Appends to an array value.
    Json& Push(Json value);

    /// @return the compact text, or indented by @p indent spaces per level when > 0
    std::string Dump(int indent = 0) const;

  private:
    void DumpTo(std::string& out, int indent, int depth) const;

    std::variant<std::nullptr_t, bool, double, int64_t, uint64_t, std::string, Array, Object>
        m_value;
};

} // namespace satnet

#endif /* SATNET_JSON_H */
