/*
 * What a program's result holds: its summary fields and its tables' columns.
 */
#ifndef SATSWEEP_OUTPUT_SCHEMA_H
#define SATSWEEP_OUTPUT_SCHEMA_H

#include "json.h"
#include "value-type.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace satsweep
{

/**
 * @brief The declared output of a program: summary fields and table columns.
 *
 * A result is `{"summary": {...}, "<table>": [{...}, ...], ...}` (the program skeleton puts
 * `params` in front). The schema gives --describe its `summary` and `tables`, and Check() holds
 * every result to it before it is written.
 *
 * @code
 * OutputSchema outputs;
 * outputs.AddSummary("goodput_bps", ValueType::FLOAT, "bit/s", "payload delivered per second")
 *     .AddColumn("connections", "id", ValueType::INT, "", "connection index");
 * @endcode
 */
class OutputSchema
{
  public:
    /// One summary field or table column.
    struct Field
    {
        std::string name; //!< key in the result
        ValueType type;   //!< type of its values (or null)
        std::string unit; //!< unit, empty for none
        std::string help; //!< what it is
        std::optional<double> minimum{}; //!< least value it can take, if any
        std::optional<double> maximum{}; //!< largest value it can take, if any
        bool reproducible{true};         //!< false: a measurement of the machine, not the model
    };

    /**
     * Declares a summary field.
     * @param name key in `summary`
     * @param type value type
     * @param unit unit, "" for none
     * @param help what it is
     * @return this schema
     */
    OutputSchema& AddSummary(std::string name, ValueType type, std::string unit, std::string help);

    /**
     * Declares the values a summary field cannot cross (an index in [0, 1]): --describe says
     * so, the report marks a confidence interval that runs past one, and Check() refuses a
     * value outside them.
     * @param name a declared summary field
     * @param minimum its least value
     * @param maximum its largest value
     * @return this schema
     * @throws std::logic_error when @p name is not declared
     */
    OutputSchema& SetSummaryBounds(const std::string& name, double minimum, double maximum);

    /**
     * Declares a summary field a measurement of the machine that ran the program (a wall-clock
     * time, a memory peak), not of the model: it differs between reruns of the same run, so
     * --describe says `"reproducible": false` and satsweep's verify and compare leave it out of
     * their verdict.
     * @param name a declared summary field
     * @return this schema
     * @throws std::logic_error when @p name is not declared
     */
    OutputSchema& SetSummaryNotReproducible(const std::string& name);

    /**
     * Declares a column of a table (the table is declared by its first column).
     * @param table the table's key in the result
     * @param name key in each row
     * @param type value type
     * @param unit unit, "" for none
     * @param help what it is
     * @return this schema
     */
    OutputSchema& AddColumn(const std::string& table,
                            std::string name,
                            ValueType type,
                            std::string unit,
                            std::string help);

    /// @return the summary fields in order
    const std::vector<Field>& GetSummary() const;
    /// @return the tables' names in order
    std::vector<std::string> GetTableNames() const;
    /// @return the columns of @p table @throws std::out_of_range when it is not declared
    const std::vector<Field>& GetColumns(const std::string& table) const;

    /// @return the `summary` array of --describe
    Json DescribeSummary() const;
    /// @return the `tables` object of --describe
    Json DescribeTables() const;

    /**
     * Names are a letter followed by letters, digits or '_', unique within the summary and
     * within each table; tables may not be called params, summary or runs.
     * @throws std::logic_error when a declaration is inconsistent (a program bug)
     */
    void Validate() const;

    /**
     * Checks that @p result has `summary` and every declared table and nothing else (`params`
     * is allowed), and that the summary and every row use only declared names, with values of
     * the declared type or null.
     * @param result a program's result
     * @throws std::logic_error naming the first violation (a program bug)
     */
    void Check(const Json& result) const;

  private:
    /// @return the field list as --describe shows it
    static Json Describe(const std::vector<Field>& fields);
    /// Checks one object (the summary or a row) against @p fields; @p where names it.
    static void CheckObject(const Json& object,
                            const std::vector<Field>& fields,
                            const std::string& where);

    std::vector<Field> m_summary;                                   //!< summary fields
    std::vector<std::pair<std::string, std::vector<Field>>> m_tables; //!< tables and columns
};

} // namespace satsweep

#endif /* SATSWEEP_OUTPUT_SCHEMA_H */
