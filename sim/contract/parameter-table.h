/*
 * A program's parameters in one table: --help, --describe, the parsing of flags, the echo.
 */
#ifndef SATSWEEP_PARAMETER_TABLE_H
#define SATSWEEP_PARAMETER_TABLE_H

#include "command-line.h"
#include "json.h"
#include "parameter.h"
#include "usage-error.h"

#include <deque>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace satsweep
{

/**
 * @brief The parameters of a program whose run is configured by a @p Config struct.
 *
 * Each entry is a Parameter (name, type, default, choices, unit, range, help) bound to the
 * Config: a member pointer, or a setter and a getter. From this one table come the `--help`
 * text, the `parameters` of `--describe`, the parsing of `--name=value` flags into a Config and
 * the `params` echo of a Config in the result.
 *
 * @code
 * ParameterTable<Config> table;
 * table.Add("clients", &Config::clients).SetDefault(100).SetMinimum(1).SetHelp("pairs");
 * table.Add("simTime", &Config::simTime).SetDefault(100).SetExclusiveMinimum(0).SetUnit("s")
 *     .SetHelp("simulated time");
 * Config config = table.Parse({"--clients=5", "--simTime=10s"});
 * @endcode
 *
 * The type comes from the field: std::string is a string, bool a bool, an integer type an int
 * (no wider than the field: SetStorageLimits()), a floating-point type a float.
 *
 * Parsing: every parameter with a default gets it; then the preset parameter, if any
 * (SetPreset()), gets its value (given or default) and its preset function runs, setting what
 * other parameters may override (e.g. a link's delay and segment size); then the other given
 * flags are applied in the table's order; last the resolver (SetResolver()) checks rules
 * across parameters and fills in the rest (e.g. a buffer size from a level and the link).
 *
 * @tparam Config a default-constructible struct of a run's settings
 */
template <typename Config>
class ParameterTable
{
  public:
    /// Stores a parsed value (of the parameter's type) into the Config.
    using Setter = std::function<void(Config&, const Json&)>;
    /// Reads the effective value from the Config, for the echo.
    using Getter = std::function<Json(const Config&)>;
    /// The names of the parameters given on the command line.
    using Given = std::set<std::string>;
    /// Sets the defaults that follow from the preset parameter's value.
    using Preset = std::function<void(Config&)>;
    /// Checks rules across parameters and fills in what follows; throws UsageError.
    using Resolver = std::function<void(Config&, const Given&)>;

    /**
     * Adds a parameter stored in a field of the Config; its type follows the field's.
     * @param name the flag's name
     * @param field the Config member holding the value
     * @return the new parameter, to declare the rest with its setters
     */
    template <typename T>
    Parameter& Add(const std::string& name, T Config::* field);

    /**
     * Adds a parameter bound by functions.
     * @param parameter the declaration
     * @param setter stores a value of the parameter's type
     * @param getter reads the effective value (null if none)
     * @return the new parameter
     */
    Parameter& Add(Parameter parameter, Setter setter, Getter getter);

    /**
     * @param name a parameter applied before the others, after which @p preset runs
     * @param preset sets the defaults that follow from that parameter's value
     */
    void SetPreset(const std::string& name, Preset preset);

    /// @param resolver runs last in parsing: cross-parameter rules, derived values
    void SetResolver(Resolver resolver);

    /// @return the parameter @p name @throws std::out_of_range when there is none
    const Parameter& Get(const std::string& name) const;
    /// @return the names in the table's order
    std::vector<std::string> GetNames() const;

    /// @throws std::logic_error when a declaration is inconsistent (a program bug)
    void Validate() const;

    /**
     * @param args `--name=value` arguments, e.g. {"--clients=5"}
     * @return the Config they give
     * @throws UsageError on a malformed, unknown, repeated or disallowed flag
     */
    Config Parse(const std::vector<std::string>& args) const;

    /**
     * @param flags name and value text of each given flag
     * @return the Config they give
     * @throws UsageError on an unknown, repeated or disallowed flag
     */
    Config ParseFlags(const std::vector<Flag>& flags) const;

    /**
     * @param config a Config from Parse()
     * @return the `params` object of the result: every parameter's effective value, in order
     * @throws std::logic_error when a getter gives a value not of its parameter's type
     */
    Json Echo(const Config& config) const;

    /// @return the `parameters` array of --describe
    Json Describe() const;

    /// @return the parameters' part of --help
    std::string GetHelp() const;

  private:
    /// A parameter and its binding to the Config.
    struct Entry
    {
        Parameter parameter; //!< the declaration
        Setter setter;       //!< stores a value
        Getter getter;       //!< reads the value
    };

    /// @return the entry named @p name, or nullptr
    const Entry* Find(const std::string& name) const;

    /// Entries in order; a deque keeps references to them valid as it grows.
    std::deque<Entry> m_entries;
    std::string m_presetName; //!< the preset parameter, empty when none
    Preset m_preset;          //!< runs after the preset parameter is set
    Resolver m_resolver;      //!< runs last
};

template <typename Config>
template <typename T>
Parameter&
ParameterTable<Config>::Add(const std::string& name, T Config::* field)
{
    if constexpr (std::is_same_v<T, std::string>)
    {
        return Add(
            Parameter(name, ValueType::STRING),
            [field](Config& config, const Json& value) { config.*field = value.GetString(); },
            [field](const Config& config) { return Json(config.*field); });
    }
    else if constexpr (std::is_same_v<T, bool>)
    {
        return Add(
            Parameter(name, ValueType::BOOL),
            [field](Config& config, const Json& value) { config.*field = value.GetBool(); },
            [field](const Config& config) { return Json(config.*field); });
    }
    else if constexpr (std::is_integral_v<T>)
    {
        Parameter parameter(name, ValueType::INT);
        parameter.SetStorageLimits(std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max());
        return Add(
            std::move(parameter),
            [field](Config& config, const Json& value) {
                if constexpr (std::is_signed_v<T>)
                {
                    config.*field = static_cast<T>(value.GetInt64());
                }
                else
                {
                    config.*field = static_cast<T>(value.GetUint64());
                }
            },
            [field](const Config& config) {
                if constexpr (std::is_signed_v<T>)
                {
                    return Json(static_cast<int64_t>(config.*field));
                }
                else
                {
                    return Json(static_cast<uint64_t>(config.*field));
                }
            });
    }
    else
    {
        static_assert(std::is_floating_point_v<T>,
                      "a parameter field is a std::string, bool, integer or floating point");
        return Add(
            Parameter(name, ValueType::FLOAT),
            [field](Config& config, const Json& value) {
                config.*field = static_cast<T>(value.GetDouble());
            },
            [field](const Config& config) { return Json(static_cast<double>(config.*field)); });
    }
}

template <typename Config>
Parameter&
ParameterTable<Config>::Add(Parameter parameter, Setter setter, Getter getter)
{
    if (Find(parameter.GetName()))
    {
        throw std::logic_error("parameter " + parameter.GetName() + " declared twice");
    }
    m_entries.push_back(Entry{std::move(parameter), std::move(setter), std::move(getter)});
    return m_entries.back().parameter;
}

template <typename Config>
void
ParameterTable<Config>::SetPreset(const std::string& name, Preset preset)
{
    m_presetName = name;
    m_preset = std::move(preset);
}

template <typename Config>
void
ParameterTable<Config>::SetResolver(Resolver resolver)
{
    m_resolver = std::move(resolver);
}

template <typename Config>
const typename ParameterTable<Config>::Entry*
ParameterTable<Config>::Find(const std::string& name) const
{
    for (const auto& entry : m_entries)
    {
        if (entry.parameter.GetName() == name)
        {
            return &entry;
        }
    }
    return nullptr;
}

template <typename Config>
const Parameter&
ParameterTable<Config>::Get(const std::string& name) const
{
    const Entry* entry = Find(name);
    if (!entry)
    {
        throw std::out_of_range("no parameter " + name);
    }
    return entry->parameter;
}

template <typename Config>
std::vector<std::string>
ParameterTable<Config>::GetNames() const
{
    std::vector<std::string> names;
    for (const auto& entry : m_entries)
    {
        names.push_back(entry.parameter.GetName());
    }
    return names;
}

template <typename Config>
void
ParameterTable<Config>::Validate() const
{
    for (const auto& entry : m_entries)
    {
        entry.parameter.Validate();
    }
    if (!m_presetName.empty() && !Find(m_presetName))
    {
        throw std::logic_error("preset parameter " + m_presetName + " is not declared");
    }
}

template <typename Config>
Config
ParameterTable<Config>::Parse(const std::vector<std::string>& args) const
{
    return ParseFlags(CommandLine(args, GetNames()).GetFlags());
}

template <typename Config>
Config
ParameterTable<Config>::ParseFlags(const std::vector<Flag>& flags) const
{
    std::vector<std::pair<const Entry*, Json>> values;
    Given given;
    for (const auto& [name, text] : flags)
    {
        const Entry* entry = Find(name);
        if (!entry)
        {
            throw UsageError(CommandLine::UnknownFlag(name, GetNames()));
        }
        if (!given.insert(name).second)
        {
            throw UsageError("--" + name + ": given twice");
        }
        values.emplace_back(entry, entry->parameter.Parse(text));
    }

    Config config{};
    for (const auto& entry : m_entries)
    {
        if (!entry.parameter.GetDefault().IsNull())
        {
            entry.setter(config, entry.parameter.GetDefault());
        }
    }
    if (!m_presetName.empty())
    {
        for (const auto& [entry, value] : values)
        {
            if (entry->parameter.GetName() == m_presetName)
            {
                entry->setter(config, value);
            }
        }
        m_preset(config);
    }
    for (const auto& entry : m_entries)
    {
        for (const auto& [bound, value] : values)
        {
            if (bound == &entry && entry.parameter.GetName() != m_presetName)
            {
                entry.setter(config, value);
            }
        }
    }
    if (m_resolver)
    {
        m_resolver(config, given);
    }
    return config;
}

template <typename Config>
Json
ParameterTable<Config>::Echo(const Config& config) const
{
    Json params(Json::Object{});
    for (const auto& entry : m_entries)
    {
        Json value = entry.getter(config);
        if (!IsOfType(value, entry.parameter.GetType()))
        {
            throw std::logic_error("params." + entry.parameter.GetName() + ": " +
                                   value.GetTypeName() + ", declared " +
                                   ToString(entry.parameter.GetType()));
        }
        params.Set(entry.parameter.GetName(), std::move(value));
    }
    return params;
}

template <typename Config>
Json
ParameterTable<Config>::Describe() const
{
    Json parameters(Json::Array{});
    for (const auto& entry : m_entries)
    {
        parameters.Push(entry.parameter.Describe());
    }
    return parameters;
}

template <typename Config>
std::string
ParameterTable<Config>::GetHelp() const
{
    std::string help;
    for (const auto& entry : m_entries)
    {
        help += entry.parameter.GetHelpEntry();
    }
    return help;
}

} // namespace satsweep

#endif /* SATSWEEP_PARAMETER_TABLE_H */
