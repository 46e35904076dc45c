#include "json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace satsweep
{

Json::Json()
    : m_value(nullptr)
{
}

Json::Json(bool value)
    : m_value(value)
{
}

Json::Json(double value)
{
    if (std::isfinite(value))
    {
        m_value = value;
    }
    else
    {
        m_value = nullptr;
    }
}

Json::Json(int64_t value)
    : m_value(value)
{
}

Json::Json(uint64_t value)
    : m_value(value)
{
}

Json::Json(uint32_t value)
    : m_value(static_cast<uint64_t>(value))
{
}

Json::Json(int value)
    : m_value(static_cast<int64_t>(value))
{
}

Json::Json(std::string value)
    : m_value(std::move(value))
{
}

Json::Json(const char* value)
    : m_value(std::string(value))
{
}

Json::Json(Array value)
    : m_value(std::move(value))
{
}

Json::Json(Object value)
    : m_value(std::move(value))
{
}

Json&
Json::Set(const std::string& key, Json value)
{
    std::get<Object>(m_value).emplace_back(key, std::move(value));
    return *this;
}

Json&
Json::Push(Json value)
{
    std::get<Array>(m_value).push_back(std::move(value));
    return *this;
}

bool
Json::IsNull() const
{
    return std::holds_alternative<std::nullptr_t>(m_value);
}

bool
Json::IsBool() const
{
    return std::holds_alternative<bool>(m_value);
}

bool
Json::IsInteger() const
{
    return std::holds_alternative<int64_t>(m_value) || std::holds_alternative<uint64_t>(m_value);
}

bool
Json::IsNumber() const
{
    return IsInteger() || std::holds_alternative<double>(m_value);
}

bool
Json::IsString() const
{
    return std::holds_alternative<std::string>(m_value);
}

bool
Json::IsArray() const
{
    return std::holds_alternative<Array>(m_value);
}

bool
Json::IsObject() const
{
    return std::holds_alternative<Object>(m_value);
}

bool
Json::GetBool() const
{
    return std::get<bool>(m_value);
}

double
Json::GetDouble() const
{
    if (const int64_t* i = std::get_if<int64_t>(&m_value))
    {
        return static_cast<double>(*i);
    }
    if (const uint64_t* u = std::get_if<uint64_t>(&m_value))
    {
        return static_cast<double>(*u);
    }
    return std::get<double>(m_value);
}

int64_t
Json::GetInt64() const
{
    if (const uint64_t* u = std::get_if<uint64_t>(&m_value))
    {
        return static_cast<int64_t>(*u);
    }
    return std::get<int64_t>(m_value);
}

uint64_t
Json::GetUint64() const
{
    if (const int64_t* i = std::get_if<int64_t>(&m_value))
    {
        return static_cast<uint64_t>(*i);
    }
    return std::get<uint64_t>(m_value);
}

long double
Json::GetIntegerExact() const
{
    if (const int64_t* i = std::get_if<int64_t>(&m_value))
    {
        return static_cast<long double>(*i);
    }
    return static_cast<long double>(std::get<uint64_t>(m_value));
}

const std::string&
Json::GetString() const
{
    return std::get<std::string>(m_value);
}

const Json::Array&
Json::GetArray() const
{
    return std::get<Array>(m_value);
}

const Json::Object&
Json::GetObject() const
{
    return std::get<Object>(m_value);
}

const Json*
Json::Find(const std::string& key) const
{
    if (const Object* o = std::get_if<Object>(&m_value))
    {
        for (const auto& [name, value] : *o)
        {
            if (name == key)
            {
                return &value;
            }
        }
    }
    return nullptr;
}

std::string
Json::GetTypeName() const
{
    if (IsNull())
    {
        return "null";
    }
    if (IsBool())
    {
        return "bool";
    }
    if (IsInteger())
    {
        return "integer";
    }
    if (IsNumber())
    {
        return "number";
    }
    if (IsString())
    {
        return "string";
    }
    return IsArray() ? "array" : "object";
}

bool
Json::operator==(const Json& other) const
{
    if (IsNumber() && other.IsNumber())
    {
        if (IsInteger() && other.IsInteger())
        {
            return GetIntegerExact() == other.GetIntegerExact();
        }
        return GetDouble() == other.GetDouble();
    }
    return m_value == other.m_value;
}

std::string
Json::Dump(int indent) const
{
    std::string out;
    DumpTo(out, indent, 0);
    return out;
}

namespace
{

void
Quote(std::string& out, const std::string& text)
{
    out += '"';
    for (unsigned char c : text)
    {
        switch (c)
        {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (c < 0x20)
            {
                char escaped[8];
                std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
                out += escaped;
            }
            else
            {
                out += static_cast<char>(c);
            }
        }
    }
    out += '"';
}

void
NewLine(std::string& out, int indent, int depth)
{
    if (indent > 0)
    {
        out += '\n';
        out.append(static_cast<size_t>(indent * depth), ' ');
    }
}

} // namespace

void
Json::DumpTo(std::string& out, int indent, int depth) const
{
    if (std::holds_alternative<std::nullptr_t>(m_value))
    {
        out += "null";
    }
    else if (const bool* b = std::get_if<bool>(&m_value))
    {
        out += *b ? "true" : "false";
    }
    else if (const double* d = std::get_if<double>(&m_value))
    {
        // Shortest text that reads back as the same double.
        char buffer[32];
        auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), *d);
        out.append(buffer, end);
    }
    else if (const int64_t* i = std::get_if<int64_t>(&m_value))
    {
        out += std::to_string(*i);
    }
    else if (const uint64_t* u = std::get_if<uint64_t>(&m_value))
    {
        out += std::to_string(*u);
    }
    else if (const std::string* s = std::get_if<std::string>(&m_value))
    {
        Quote(out, *s);
    }
    else if (const Array* a = std::get_if<Array>(&m_value))
    {
        // An array of scalars (e.g. choices) stays on one line.
        bool scalars = true;
        for (const auto& element : *a)
        {
            scalars = scalars && !element.IsArray() && !element.IsObject();
        }
        out += '[';
        for (size_t k = 0; k < a->size(); ++k)
        {
            out += k ? (scalars && indent > 0 ? ", " : ",") : "";
            if (!scalars)
            {
                NewLine(out, indent, depth + 1);
            }
            (*a)[k].DumpTo(out, indent, depth + 1);
        }
        if (!a->empty() && !scalars)
        {
            NewLine(out, indent, depth);
        }
        out += ']';
    }
    else
    {
        const Object& o = std::get<Object>(m_value);
        out += '{';
        for (size_t k = 0; k < o.size(); ++k)
        {
            out += k ? "," : "";
            NewLine(out, indent, depth + 1);
            Quote(out, o[k].first);
            out += indent > 0 ? ": " : ":";
            o[k].second.DumpTo(out, indent, depth + 1);
        }
        if (!o.empty())
        {
            NewLine(out, indent, depth);
        }
        out += '}';
    }
}

Json
MeanOrNull(const std::vector<double>& values)
{
    if (values.empty())
    {
        return Json();
    }
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    return Json(sum / values.size());
}

} // namespace satsweep
