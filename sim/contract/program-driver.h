/*
 * The engine contract's command line, independent of a program's Config type.
 */
#ifndef SATSWEEP_PROGRAM_DRIVER_H
#define SATSWEEP_PROGRAM_DRIVER_H

#include "command-line.h"
#include "cost-hint.h"
#include "json.h"
#include "output-schema.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace satsweep
{

/**
 * @brief Runs a program by the engine contract: --help, --describe, or one run to a file.
 *
 * - `PROGRAM --help` prints the usage, the parameters and the run-control flags; exit 0.
 * - `PROGRAM --describe` prints one JSON object `{"name", "version", "parameters", "summary",
 *   "tables"[, "cost"]}`; exit 0.
 * - `PROGRAM --name=value ... [--run=R] [--seed=S] [--out=FILE]` seeds ns-3's generator
 *   (RngSeedManager: seed S, default 1; run R, 1 .. 2^64 - 1, default 1), runs once and writes
 *   `{"params", "summary", "<table>", ...}` to FILE through a temporary file and a rename
 *   (standard output without --out); exit 0.
 *
 * Bad input (a malformed, unknown, repeated or disallowed flag, a cross-parameter rule, --out
 * into a directory that does not exist) exits 2 after one line on the error stream, before
 * anything runs. Any other failure, including a result that breaks the output schema or an
 * inconsistent declaration (program bugs), exits 1 with a message.
 *
 * Programs do not use this class directly but RunProgram() (program.h), which binds the
 * hooks to a ParameterTable and a Config.
 */
class ProgramDriver
{
  public:
    /// What the driver needs of a program's parameters and run, free of its Config type.
    struct Hooks
    {
        std::vector<std::string> names;    //!< parameter names
        std::function<void()> validate;    //!< throws std::logic_error on a declaration bug
        std::function<std::string()> help; //!< the parameters' part of --help
        std::function<Json()> describe;    //!< `parameters` of --describe
        /// Parses the parameters' flags, keeps the Config, returns its echo; throws UsageError.
        std::function<Json(const std::vector<Flag>&)> parse;
        std::function<Json()> run; //!< runs the kept Config
    };

    /**
     * @param name the program's name
     * @param version its version (e.g. "0.1.0 (ns-3 3.44)")
     * @param outputs its output schema
     * @param cost its cost hint, if any
     * @param hooks its parameters and run
     */
    ProgramDriver(std::string name,
                  std::string version,
                  OutputSchema outputs,
                  std::optional<CostHint> cost,
                  Hooks hooks);

    /**
     * @param args the arguments after the program's name
     * @param out where --help, --describe and a result without --out go
     * @param err where errors go (one line each)
     * @return the exit code: 0 done, 2 bad input, 1 any other failure
     */
    int Main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) const;

    /// @return the --describe object @throws std::logic_error if the declarations are inconsistent
    Json Describe() const;

    /// @return the --help text
    std::string GetUsage() const;

    /**
     * Writes @p text to @p path through a temporary file in the same directory and a rename:
     * readers never see half a file.
     * @param path the file
     * @param text its content
     * @throws std::runtime_error when the file cannot be written
     */
    static void WriteAtomically(const std::string& path, const std::string& text);

  private:
    /// Checks every declaration; throws std::logic_error.
    void Validate() const;
    /// Parses run control and parameters, runs, checks and writes the result; returns the exit
    /// code.
    int Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) const;

    std::string m_name;             //!< program name
    std::string m_version;          //!< program version
    OutputSchema m_outputs;         //!< output schema
    std::optional<CostHint> m_cost; //!< cost hint
    Hooks m_hooks;                  //!< parameters and run
};

} // namespace satsweep

#endif /* SATSWEEP_PROGRAM_DRIVER_H */
