#include "cost-hint.h"

#include <stdexcept>

namespace satsweep
{

CostHint::CostHint(std::vector<std::string> per, double seconds)
    : m_per(std::move(per)),
      m_seconds(seconds)
{
}

CostHint::CostHint(std::vector<std::string> per,
                   std::string by,
                   std::vector<std::pair<std::string, double>> seconds)
    : m_per(std::move(per)),
      m_by(std::move(by)),
      m_secondsBy(std::move(seconds))
{
}

Json
CostHint::Describe(const std::function<Json(const std::string& choice)>& echoOf) const
{
    Json per(Json::Array{});
    for (const auto& name : m_per)
    {
        per.Push(name);
    }
    Json cost(Json::Object{{"per", per}});
    if (m_by.empty())
    {
        cost.Set("seconds", m_seconds);
        return cost;
    }
    cost.Set("by", m_by);
    Json seconds(Json::Object{});
    for (const auto& [value, rate] : m_secondsBy)
    {
        seconds.Set(value, rate);
    }
    cost.Set("seconds", seconds);
    if (echoOf && !m_per.empty())
    {
        // each choice's presets, read from the program's own parsing: written once, there
        Json defaults(Json::Object{});
        for (const auto& [value, rate] : m_secondsBy)
        {
            const Json echo = echoOf(value);
            Json values(Json::Object{});
            for (const auto& name : m_per)
            {
                values.Set(name, *echo.Find(name));
            }
            defaults.Set(value, values);
        }
        cost.Set("defaults", defaults);
    }
    return cost;
}

const std::string&
CostHint::GetBy() const
{
    return m_by;
}

void
CostHint::Validate(const Json& parameters) const
{
    auto find = [&parameters](const std::string& name) -> const Json* {
        for (const auto& parameter : parameters.GetArray())
        {
            if (parameter.Find("name")->GetString() == name)
            {
                return &parameter;
            }
        }
        throw std::logic_error("cost: " + name + " is not a parameter");
    };
    for (const auto& name : m_per)
    {
        const Json* parameter = find(name);
        const std::string type = parameter->Find("type")->GetString();
        if ((type != "int" && type != "float") || parameter->Find("default")->IsNull())
        {
            throw std::logic_error("cost: " + name + " is not a number with a default");
        }
    }
    if (m_by.empty())
    {
        return;
    }
    const Json* choices = find(m_by)->Find("choices");
    if (!choices || choices->GetArray().size() != m_secondsBy.size())
    {
        throw std::logic_error("cost: " + m_by + " needs choices, one rate for each");
    }
    for (const auto& choice : choices->GetArray())
    {
        bool found = false;
        for (const auto& [value, rate] : m_secondsBy)
        {
            found = found || (choice.IsString() && choice.GetString() == value);
        }
        if (!found)
        {
            throw std::logic_error("cost: no rate for " + m_by + "=" + choice.Dump());
        }
    }
}

double
CostHint::Estimate(const Json& params) const
{
    double seconds = m_seconds;
    if (!m_by.empty())
    {
        const std::string& value = params.Find(m_by)->GetString();
        for (const auto& [choice, rate] : m_secondsBy)
        {
            seconds = choice == value ? rate : seconds;
        }
    }
    for (const auto& name : m_per)
    {
        seconds *= params.Find(name)->GetDouble();
    }
    return seconds;
}

} // namespace satsweep
