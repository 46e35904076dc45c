/*
 * One parameter of a program: its declaration, the parsing of its flag, its description.
 */
#ifndef SATSWEEP_PARAMETER_H
#define SATSWEEP_PARAMETER_H

#include "json.h"
#include "value-type.h"

#include <optional>
#include <string>
#include <vector>

namespace satsweep
{

/**
 * @brief What a program declares about one parameter, and how its `--name=value` is read.
 *
 * Built with the setters, which return the parameter so calls chain:
 *
 * @code
 * Parameter("simTime", ValueType::FLOAT).SetDefault(100).SetUnit("s").SetExclusiveMinimum(0)
 *     .SetHelp("simulated time");
 * @endcode
 *
 * Parsing (Parse()) checks the type, the choices and the range, and gives the value as a Json of
 * the declared type. A float whose unit is `s` also takes the suffixes `s`, `ms`, `us`
 * (`5ms` = 0.005), one whose unit is `bit/s` the suffixes `bps`, `kbps`, `Mbps`, `Gbps`
 * (`45Mbps` = 4.5e7). An int is at most what the C++ field it is stored in holds
 * (SetStorageLimits()): past that the message names the limit.
 */
class Parameter
{
  public:
    /**
     * @param name the flag's name (`--name=value`) and the key in `params`
     * @param type the value type
     */
    Parameter(std::string name, ValueType type);

    /**
     * @param value the default, of the declared type; null (the default default) when it
     *        depends on other parameters: the help should then say what it is
     * @return this parameter
     */
    Parameter& SetDefault(Json value);
    /// @param values the only values allowed, of the declared type @return this parameter
    Parameter& SetChoices(std::vector<Json> values);
    /// @param unit the unit of the value, e.g. "s", "bit/s", "bytes" @return this parameter
    Parameter& SetUnit(std::string unit);
    /// @param value the value must be >= @p value @return this parameter
    Parameter& SetMinimum(double value);
    /// @param value the value must be <= @p value @return this parameter
    Parameter& SetMaximum(double value);
    /// @param value the value must be > @p value @return this parameter
    Parameter& SetExclusiveMinimum(double value);
    /// @param value the value must be < @p value @return this parameter
    Parameter& SetExclusiveMaximum(double value);
    /// @param text what the parameter means (one or more sentences) @return this parameter
    Parameter& SetHelp(std::string text);
    /**
     * Limits of the C++ integer that stores the value: not part of the declaration, but a value
     * past them is refused. ParameterTable sets them from the bound field's type.
     * @param low the lowest storable value
     * @param high the highest storable value
     * @return this parameter
     */
    Parameter& SetStorageLimits(long double low, long double high);

    const std::string& GetName() const;       //!< @return the name
    ValueType GetType() const;                //!< @return the value type
    const Json& GetDefault() const;           //!< @return the default, or null
    const std::vector<Json>& GetChoices() const; //!< @return the choices, empty when any value
    const std::string& GetUnit() const;       //!< @return the unit, empty when none
    const std::string& GetHelp() const;       //!< @return the help text

    /**
     * @param text the value text of `--name=text`
     * @return the value, of the declared type
     * @throws UsageError `--name=text: allowed: ...` when @p text is not an allowed value
     */
    Json Parse(const std::string& text) const;

    /**
     * @param value a value
     * @return whether @p value (not null) is of the declared type, among the choices and in range
     */
    bool Accepts(const Json& value) const;

    /// @return what is allowed, as in the error message: "an integer >= 1", "wan, meo, geo"
    std::string GetAllowed() const;

    /// @return the entry of `parameters` in --describe
    Json Describe() const;

    /// @return the entry of --help: `  --name=TYPE`, the help, and a line of facts
    std::string GetHelpEntry() const;

    /// @throws std::logic_error when the declaration is inconsistent (a program bug)
    void Validate() const;

  private:
    /// A unit suffix: the value is the number x multiply / divide.
    struct Suffix
    {
        std::string text; //!< e.g. "ms"
        double multiply;  //!< e.g. 1
        double divide;    //!< e.g. 1000
    };

    /// @return the suffixes taken by this parameter's unit (none unless a float in s or bit/s)
    std::vector<Suffix> GetSuffixes() const;
    /// @return the range, e.g. ">= 0 and <= 1", empty when none
    std::string GetRange() const;
    /// @return whether the number @p x is in the declared range
    bool InRange(long double x) const;
    /// @return the value @p text stands for (unit suffix applied), unchecked; nullopt if malformed
    std::optional<Json> ParseValue(const std::string& text) const;

    std::string m_name;                           //!< flag name
    ValueType m_type;                             //!< value type
    Json m_default;                               //!< default, or null
    std::vector<Json> m_choices;                  //!< allowed values, empty for any
    std::string m_unit;                           //!< unit, empty for none
    std::optional<double> m_minimum;              //!< inclusive lower bound
    std::optional<double> m_maximum;              //!< inclusive upper bound
    std::optional<double> m_exclusiveMinimum;     //!< exclusive lower bound
    std::optional<double> m_exclusiveMaximum;     //!< exclusive upper bound
    std::string m_help;                           //!< help text
    std::optional<long double> m_storageLow;      //!< lowest storable integer
    std::optional<long double> m_storageHigh;     //!< highest storable integer
};

} // namespace satsweep

#endif /* SATSWEEP_PARAMETER_H */
