/*
 * A simulation program by the engine contract: its spec, and main() in one call.
 */
#ifndef SATSWEEP_PROGRAM_H
#define SATSWEEP_PROGRAM_H

#include "cost-hint.h"
#include "json.h"
#include "output-schema.h"
#include "parameter-table.h"
#include "program-driver.h"

#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace satsweep
{

/**
 * @brief Everything the contract needs to know of a program.
 *
 * @tparam Config the program's struct of a run's settings
 */
template <typename Config>
struct ProgramSpec
{
    std::string name;                  //!< the program's name, e.g. "satnet"
    std::string version;               //!< its version, e.g. "0.1.0 (ns-3 3.44)"
    ParameterTable<Config> parameters; //!< its parameters
    OutputSchema outputs;              //!< its summary fields and tables
    std::optional<CostHint> cost;      //!< optional estimate of a run's core-seconds
    /**
     * One run of a parsed Config, ns-3's RngSeedManager already seeded: returns
     * `{"summary": {...}, "<table>": [...], ...}` (the driver adds `params` in front).
     */
    std::function<Json(const Config&)> run;
};

/**
 * @brief A program's whole main(): --help, --describe, or one run by the contract.
 *
 * @code
 * int
 * main(int argc, char* argv[])
 * {
 *     return satsweep::RunProgram<Config>({.name = "myprog", .version = "1.0",
 *                                          .parameters = MyParameters(), .outputs = MyOutputs(),
 *                                          .run = &MyRun}, argc, argv);
 * }
 * @endcode
 *
 * @param spec the program
 * @param argc main's argc
 * @param argv main's argv
 * @return the exit code (ProgramDriver::Main())
 */
template <typename Config>
int
RunProgram(const ProgramSpec<Config>& spec, int argc, char* argv[])
{
    Config config{};
    ProgramDriver::Hooks hooks{
        .names = spec.parameters.GetNames(),
        .validate = [&spec]() { spec.parameters.Validate(); },
        .help = [&spec]() { return spec.parameters.GetHelp(); },
        .describe = [&spec]() { return spec.parameters.Describe(); },
        .parse =
            [&spec, &config](const std::vector<Flag>& flags) {
                config = spec.parameters.ParseFlags(flags);
                return spec.parameters.Echo(config);
            },
        .run = [&spec, &config]() { return spec.run(config); },
    };
    const ProgramDriver driver(spec.name, spec.version, spec.outputs, spec.cost, hooks);
    return driver.Main(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}

} // namespace satsweep

#endif /* SATSWEEP_PROGRAM_H */
