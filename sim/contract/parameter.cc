#include "parameter.h"

#include "usage-error.h"

#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <stdexcept>

namespace satsweep
{

namespace
{

/// @return whether @p name is a letter followed by letters, digits or '_'
bool
IsName(const std::string& name)
{
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (name.empty() || !letter(name[0]))
    {
        return false;
    }
    for (char c : name)
    {
        if (!letter(c) && !(c >= '0' && c <= '9') && c != '_')
        {
            return false;
        }
    }
    return true;
}

/// @return @p value as --help and messages show it: strings bare, numbers as in JSON
std::string
Display(const Json& value)
{
    return value.IsString() ? value.GetString() : value.Dump();
}

/// @return @p values shown and joined with @p separator
std::string
Join(const std::vector<Json>& values, const std::string& separator)
{
    std::string joined;
    for (size_t k = 0; k < values.size(); ++k)
    {
        joined += (k ? separator : "") + Display(values[k]);
    }
    return joined;
}

/// @return the text of a bound: the shortest that reads back as the same double
std::string
Number(double value)
{
    return Json(value).Dump();
}

/// @return the integer @p value (a storage limit) in decimal, exactly
std::string
Integer(long double value)
{
    return value < 0 ? std::to_string(static_cast<int64_t>(value))
                     : std::to_string(static_cast<uint64_t>(value));
}

/// @return whether @p text is an optional minus followed by one or more digits
bool
IsIntegerText(const std::string& text)
{
    const size_t start = text.starts_with("-") ? 1 : 0;
    if (text.size() == start)
    {
        return false;
    }
    for (size_t k = start; k < text.size(); ++k)
    {
        if (text[k] < '0' || text[k] > '9')
        {
            return false;
        }
    }
    return true;
}

/// @return @p text wrapped at 80 columns, every line indented by @p indent spaces
std::string
Wrap(const std::string& text, size_t indent)
{
    const size_t width = 80;
    std::string out;
    std::string line;
    size_t start = 0;
    while (start < text.size())
    {
        size_t end = text.find(' ', start);
        if (end == std::string::npos)
        {
            end = text.size();
        }
        const std::string word = text.substr(start, end - start);
        start = end + 1;
        if (word.empty())
        {
            continue;
        }
        if (!line.empty() && indent + line.size() + 1 + word.size() > width)
        {
            out += std::string(indent, ' ') + line + "\n";
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty())
    {
        out += std::string(indent, ' ') + line + "\n";
    }
    return out;
}

/// @return @p value as a double when @p type is FLOAT and it is an integer, else @p value
Json
Normalize(Json value, ValueType type)
{
    if (type == ValueType::FLOAT && value.IsInteger())
    {
        return Json(value.GetDouble());
    }
    return value;
}

} // namespace

Parameter::Parameter(std::string name, ValueType type)
    : m_name(std::move(name)),
      m_type(type)
{
}

Parameter&
Parameter::SetDefault(Json value)
{
    m_default = Normalize(std::move(value), m_type);
    return *this;
}

Parameter&
Parameter::SetChoices(std::vector<Json> values)
{
    m_choices.clear();
    for (auto& value : values)
    {
        m_choices.push_back(Normalize(std::move(value), m_type));
    }
    return *this;
}

Parameter&
Parameter::SetUnit(std::string unit)
{
    m_unit = std::move(unit);
    return *this;
}

Parameter&
Parameter::SetMinimum(double value)
{
    m_minimum = value;
    return *this;
}

Parameter&
Parameter::SetMaximum(double value)
{
    m_maximum = value;
    return *this;
}

Parameter&
Parameter::SetExclusiveMinimum(double value)
{
    m_exclusiveMinimum = value;
    return *this;
}

Parameter&
Parameter::SetExclusiveMaximum(double value)
{
    m_exclusiveMaximum = value;
    return *this;
}

Parameter&
Parameter::SetHelp(std::string text)
{
    m_help = std::move(text);
    return *this;
}

Parameter&
Parameter::SetStorageLimits(long double low, long double high)
{
    m_storageLow = low;
    m_storageHigh = high;
    return *this;
}

const std::string&
Parameter::GetName() const
{
    return m_name;
}

ValueType
Parameter::GetType() const
{
    return m_type;
}

const Json&
Parameter::GetDefault() const
{
    return m_default;
}

const std::vector<Json>&
Parameter::GetChoices() const
{
    return m_choices;
}

const std::string&
Parameter::GetUnit() const
{
    return m_unit;
}

const std::string&
Parameter::GetHelp() const
{
    return m_help;
}

std::vector<Parameter::Suffix>
Parameter::GetSuffixes() const
{
    if (m_type != ValueType::FLOAT)
    {
        return {};
    }
    // Longest first: "ms" must not be read as "m" + "s".
    if (m_unit == "s")
    {
        return {{"us", 1, 1e6}, {"ms", 1, 1e3}, {"s", 1, 1}};
    }
    if (m_unit == "bit/s")
    {
        return {{"Gbps", 1e9, 1}, {"Mbps", 1e6, 1}, {"kbps", 1e3, 1}, {"bps", 1, 1}};
    }
    return {};
}

std::string
Parameter::GetRange() const
{
    std::vector<std::string> parts;
    if (m_minimum)
    {
        parts.push_back(">= " + Number(*m_minimum));
    }
    if (m_exclusiveMinimum)
    {
        parts.push_back("> " + Number(*m_exclusiveMinimum));
    }
    if (m_maximum)
    {
        parts.push_back("<= " + Number(*m_maximum));
    }
    if (m_exclusiveMaximum)
    {
        parts.push_back("< " + Number(*m_exclusiveMaximum));
    }
    std::string range;
    for (const auto& part : parts)
    {
        range += (range.empty() ? "" : " and ") + part;
    }
    return range;
}

bool
Parameter::InRange(long double x) const
{
    return (!m_minimum || x >= *m_minimum) && (!m_exclusiveMinimum || x > *m_exclusiveMinimum) &&
           (!m_maximum || x <= *m_maximum) && (!m_exclusiveMaximum || x < *m_exclusiveMaximum);
}

std::optional<Json>
Parameter::ParseValue(const std::string& text) const
{
    switch (m_type)
    {
    case ValueType::STRING:
        return Json(text);
    case ValueType::BOOL:
        if (text == "true" || text == "1")
        {
            return Json(true);
        }
        if (text == "false" || text == "0")
        {
            return Json(false);
        }
        return std::nullopt;
    case ValueType::INT: {
        if (!IsIntegerText(text))
        {
            return std::nullopt;
        }
        const char* end = text.data() + text.size();
        if (text.starts_with("-"))
        {
            int64_t value = 0;
            auto [ptr, ec] = std::from_chars(text.data(), end, value);
            return ec == std::errc() && ptr == end ? std::optional<Json>(Json(value))
                                                   : std::nullopt;
        }
        uint64_t value = 0;
        auto [ptr, ec] = std::from_chars(text.data(), end, value);
        return ec == std::errc() && ptr == end ? std::optional<Json>(Json(value)) : std::nullopt;
    }
    case ValueType::FLOAT: {
        std::string number = text;
        Suffix scale{"", 1, 1};
        for (const auto& suffix : GetSuffixes())
        {
            if (text.size() > suffix.text.size() && text.ends_with(suffix.text))
            {
                number = text.substr(0, text.size() - suffix.text.size());
                scale = suffix;
                break;
            }
        }
        double value = 0;
        const char* end = number.data() + number.size();
        auto [ptr, ec] = std::from_chars(number.data(), end, value);
        if (number.empty() || ec != std::errc() || ptr != end || !std::isfinite(value))
        {
            return std::nullopt;
        }
        // Dividing keeps 5ms exactly the double nearest 0.005 (x 1e-3 may be one ulp off).
        if (scale.multiply != 1)
        {
            value *= scale.multiply;
        }
        if (scale.divide != 1)
        {
            value /= scale.divide;
        }
        return Json(value);
    }
    }
    return std::nullopt;
}

Json
Parameter::Parse(const std::string& text) const
{
    const std::string flag = "--" + m_name + "=" + text;
    const std::optional<Json> value = ParseValue(text);
    if (m_type == ValueType::INT && !value && IsIntegerText(text))
    {
        // Beyond 64 bits, and so beyond any storage, if not beyond the declared range.
        const bool negative = text.starts_with("-");
        if (negative ? (m_minimum || m_exclusiveMinimum) : (m_maximum || m_exclusiveMaximum))
        {
            throw UsageError(flag + ": allowed: " + GetAllowed());
        }
        throw UsageError(flag + ": allowed: " + GetAllowed() + " (at " +
                         (negative ? "least " + Integer(m_storageLow.value_or(INT64_MIN))
                                   : "most " + Integer(m_storageHigh.value_or(UINT64_MAX))) +
                         ")");
    }
    if (!value || !Accepts(*value))
    {
        if (value && value->IsInteger() && InRange(value->GetIntegerExact()))
        {
            // Allowed by the declaration, but the C++ field cannot hold it.
            const long double x = value->GetIntegerExact();
            if (m_storageLow && x < *m_storageLow)
            {
                throw UsageError(flag + ": allowed: " + GetAllowed() + " (at least " +
                                 Integer(*m_storageLow) + ")");
            }
            if (m_storageHigh && x > *m_storageHigh)
            {
                throw UsageError(flag + ": allowed: " + GetAllowed() + " (at most " +
                                 Integer(*m_storageHigh) + ")");
            }
        }
        throw UsageError(flag + ": allowed: " + GetAllowed());
    }
    return *value;
}

bool
Parameter::Accepts(const Json& value) const
{
    if (value.IsNull() || !IsOfType(value, m_type))
    {
        return false;
    }
    if (!m_choices.empty())
    {
        bool found = false;
        for (const auto& choice : m_choices)
        {
            found = found || choice == value;
        }
        if (!found)
        {
            return false;
        }
    }
    if (value.IsInteger())
    {
        const long double x = value.GetIntegerExact();
        return InRange(x) && (!m_storageLow || x >= *m_storageLow) &&
               (!m_storageHigh || x <= *m_storageHigh);
    }
    return !value.IsNumber() || InRange(value.GetDouble());
}

std::string
Parameter::GetAllowed() const
{
    if (!m_choices.empty())
    {
        return Join(m_choices, ", ");
    }
    const std::string range = GetRange();
    switch (m_type)
    {
    case ValueType::STRING:
        return "a string";
    case ValueType::BOOL:
        return "true, false, 1, 0";
    case ValueType::INT:
        return "an integer" + (range.empty() ? "" : " " + range);
    case ValueType::FLOAT: {
        std::string allowed = "a number" + (range.empty() ? "" : " " + range);
        const auto suffixes = GetSuffixes();
        if (!suffixes.empty())
        {
            allowed += ", in " + m_unit + " or with a suffix";
            for (size_t k = 0; k < suffixes.size(); ++k)
            {
                allowed += (k ? ", " : " ") + suffixes[suffixes.size() - 1 - k].text;
            }
        }
        return allowed;
    }
    }
    return "";
}

Json
Parameter::Describe() const
{
    Json entry(Json::Object{{"name", m_name}, {"type", ToString(m_type)}, {"default", m_default}});
    if (!m_choices.empty())
    {
        entry.Set("choices", Json(m_choices));
    }
    if (!m_unit.empty())
    {
        entry.Set("unit", m_unit);
    }
    if (m_minimum)
    {
        entry.Set("minimum", *m_minimum);
    }
    if (m_maximum)
    {
        entry.Set("maximum", *m_maximum);
    }
    if (m_exclusiveMinimum)
    {
        entry.Set("exclusiveMinimum", *m_exclusiveMinimum);
    }
    if (m_exclusiveMaximum)
    {
        entry.Set("exclusiveMaximum", *m_exclusiveMaximum);
    }
    entry.Set("help", m_help);
    return entry;
}

std::string
Parameter::GetHelpEntry() const
{
    std::string placeholder = ToString(m_type);
    for (auto& c : placeholder)
    {
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (!m_choices.empty())
    {
        placeholder = Join(m_choices, "|");
    }
    std::string facts = ToString(m_type);
    const std::string range = GetRange();
    if (!range.empty())
    {
        facts += " " + range;
    }
    if (!m_unit.empty())
    {
        facts += ", in " + m_unit;
        const auto suffixes = GetSuffixes();
        for (size_t k = 0; k < suffixes.size(); ++k)
        {
            facts += (k ? ", " : " (suffixes ") + suffixes[suffixes.size() - 1 - k].text;
        }
        facts += suffixes.empty() ? "" : ")";
    }
    facts += m_default.IsNull() ? "; no fixed default" : "; default " + Display(m_default);
    return "  --" + m_name + "=" + placeholder + "\n" + Wrap(m_help, 6) + Wrap(facts, 6);
}

void
Parameter::Validate() const
{
    auto fail = [this](const std::string& what) {
        throw std::logic_error("parameter " + m_name + ": " + what);
    };
    if (!IsName(m_name))
    {
        fail("a name is a letter followed by letters, digits or '_'");
    }
    if (m_help.empty())
    {
        fail("no help text");
    }
    for (const auto& choice : m_choices)
    {
        if (choice.IsNull() || !IsOfType(choice, m_type) ||
            (choice.IsNumber() && !InRange(choice.GetDouble())))
        {
            fail("choice " + choice.Dump() + " is not a " + ToString(m_type) + " in range");
        }
    }
    if (!m_default.IsNull() && !Accepts(m_default))
    {
        fail("default " + m_default.Dump() + " is not an allowed value (" + GetAllowed() + ")");
    }
}

} // namespace satsweep
