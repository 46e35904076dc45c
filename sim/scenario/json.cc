#include "json.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace satnet
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
        out += '[';
        for (size_t k = 0; k < a->size(); ++k)
        {
            out += k ? "," : "";
            NewLine(out, indent, depth + 1);
            (*a)[k].DumpTo(out, indent, depth + 1);
        }
        if (!a->empty())
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

} // namespace satnet
