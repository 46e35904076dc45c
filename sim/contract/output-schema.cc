#include "output-schema.h"

#include <cctype>
#include <set>
#include <stdexcept>

namespace satsweep
{

OutputSchema&
OutputSchema::AddSummary(std::string name, ValueType type, std::string unit, std::string help)
{
    m_summary.push_back(Field{std::move(name), type, std::move(unit), std::move(help)});
    return *this;
}

OutputSchema&
OutputSchema::AddColumn(const std::string& table,
                        std::string name,
                        ValueType type,
                        std::string unit,
                        std::string help)
{
    Field field{std::move(name), type, std::move(unit), std::move(help)};
    for (auto& [tableName, columns] : m_tables)
    {
        if (tableName == table)
        {
            columns.push_back(std::move(field));
            return *this;
        }
    }
    m_tables.emplace_back(table, std::vector<Field>{std::move(field)});
    return *this;
}

OutputSchema&
OutputSchema::SetSummaryBounds(const std::string& name, double minimum, double maximum)
{
    for (auto& field : m_summary)
    {
        if (field.name == name)
        {
            field.minimum = minimum;
            field.maximum = maximum;
            return *this;
        }
    }
    throw std::logic_error("summary." + name + ": bounds of a field not declared");
}

OutputSchema&
OutputSchema::SetSummaryNotReproducible(const std::string& name)
{
    for (auto& field : m_summary)
    {
        if (field.name == name)
        {
            field.reproducible = false;
            return *this;
        }
    }
    throw std::logic_error("summary." + name + ": not reproducible, but not declared");
}

const std::vector<OutputSchema::Field>&
OutputSchema::GetSummary() const
{
    return m_summary;
}

std::vector<std::string>
OutputSchema::GetTableNames() const
{
    std::vector<std::string> names;
    for (const auto& [name, columns] : m_tables)
    {
        names.push_back(name);
    }
    return names;
}

const std::vector<OutputSchema::Field>&
OutputSchema::GetColumns(const std::string& table) const
{
    for (const auto& [name, columns] : m_tables)
    {
        if (name == table)
        {
            return columns;
        }
    }
    throw std::out_of_range("no table " + table);
}

Json
OutputSchema::Describe(const std::vector<Field>& fields)
{
    Json described(Json::Array{});
    for (const auto& field : fields)
    {
        Json entry(Json::Object{{"name", field.name}, {"type", ToString(field.type)}});
        if (!field.unit.empty())
        {
            entry.Set("unit", field.unit);
        }
        entry.Set("help", field.help);
        if (field.minimum)
        {
            entry.Set("minimum", *field.minimum);
        }
        if (field.maximum)
        {
            entry.Set("maximum", *field.maximum);
        }
        if (!field.reproducible)
        {
            entry.Set("reproducible", false);
        }
        described.Push(std::move(entry));
    }
    return described;
}

Json
OutputSchema::DescribeSummary() const
{
    return Describe(m_summary);
}

Json
OutputSchema::DescribeTables() const
{
    Json tables(Json::Object{});
    for (const auto& [name, columns] : m_tables)
    {
        tables.Set(name, Describe(columns));
    }
    return tables;
}

void
OutputSchema::Validate() const
{
    auto checkFields = [](const std::vector<Field>& fields, const std::string& where) {
        std::set<std::string> names;
        for (const auto& field : fields)
        {
            bool name =
                !field.name.empty() && std::isalpha(static_cast<unsigned char>(field.name[0]));
            for (char c : field.name)
            {
                name = name && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
            }
            if (!name || !names.insert(field.name).second)
            {
                throw std::logic_error(where + ": field '" + field.name +
                                       "' is not a name (letters, digits, _) or declared twice");
            }
            if (field.help.empty())
            {
                throw std::logic_error(where + "." + field.name + ": no help text");
            }
        }
    };
    checkFields(m_summary, "summary");
    for (const auto& [name, columns] : m_tables)
    {
        if (name == "params" || name == "summary" || name == "runs" || name.empty())
        {
            throw std::logic_error("table name '" + name + "' is reserved");
        }
        checkFields(columns, name);
    }
}

void
OutputSchema::CheckObject(const Json& object,
                          const std::vector<Field>& fields,
                          const std::string& where)
{
    if (!object.IsObject())
    {
        throw std::logic_error(where + ": " + object.GetTypeName() + ", not an object");
    }
    for (const auto& [key, value] : object.GetObject())
    {
        const Field* declared = nullptr;
        for (const auto& field : fields)
        {
            declared = field.name == key ? &field : declared;
        }
        if (!declared)
        {
            throw std::logic_error(where + "." + key + ": not declared in the output schema");
        }
        if (!IsOfType(value, declared->type))
        {
            throw std::logic_error(where + "." + key + ": " + value.GetTypeName() + " " +
                                   value.Dump() + ", declared " + ToString(declared->type));
        }
        if (value.IsNumber() && ((declared->minimum && value.GetDouble() < *declared->minimum) ||
                                 (declared->maximum && value.GetDouble() > *declared->maximum)))
        {
            throw std::logic_error(where + "." + key + ": " + value.Dump() +
                                   " is outside its declared bounds");
        }
    }
}

void
OutputSchema::Check(const Json& result) const
{
    if (!result.IsObject())
    {
        throw std::logic_error("result: " + result.GetTypeName() + ", not an object");
    }
    for (const auto& [key, value] : result.GetObject())
    {
        bool declared = key == "params" || key == "summary";
        for (const auto& [name, columns] : m_tables)
        {
            declared = declared || key == name;
        }
        if (!declared)
        {
            throw std::logic_error("result." + key + ": not declared in the output schema");
        }
    }
    const Json* summary = result.Find("summary");
    if (!summary)
    {
        throw std::logic_error("result: no summary");
    }
    CheckObject(*summary, m_summary, "summary");
    for (const auto& [name, columns] : m_tables)
    {
        const Json* table = result.Find(name);
        if (!table || !table->IsArray())
        {
            throw std::logic_error("result." + name + ": missing or not an array");
        }
        for (size_t row = 0; row < table->GetArray().size(); ++row)
        {
            CheckObject(table->GetArray()[row], columns, name + "[" + std::to_string(row) + "]");
        }
    }
}

} // namespace satsweep
