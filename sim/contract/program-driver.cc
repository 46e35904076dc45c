#include "program-driver.h"

#include "parameter.h"
#include "usage-error.h"

#include "ns3/rng-seed-manager.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <unistd.h>

namespace satsweep
{

namespace
{

/// `--run`: ns-3's RngRun, 64 bits.
Parameter
RunFlag()
{
    return Parameter("run", ValueType::INT)
        .SetDefault(1)
        .SetMinimum(1)
        .SetStorageLimits(0, UINT64_MAX)
        .SetHelp("ns-3 RngRun: the replication's independent random stream.");
}

/// `--seed`: ns-3's RngSeed, 32 bits, below MRG32k3a's modulus m2 = 4294944443 (ns-3 aborts
/// on a larger seed).
Parameter
SeedFlag()
{
    return Parameter("seed", ValueType::INT)
        .SetDefault(1)
        .SetMinimum(1)
        .SetMaximum(4294944442.0)
        .SetStorageLimits(0, UINT32_MAX)
        .SetHelp("ns-3 RngSeed: keep it the same across a study and vary --run.");
}

} // namespace

ProgramDriver::ProgramDriver(std::string name,
                             std::string version,
                             OutputSchema outputs,
                             std::optional<CostHint> cost,
                             Hooks hooks)
    : m_name(std::move(name)),
      m_version(std::move(version)),
      m_outputs(std::move(outputs)),
      m_cost(std::move(cost)),
      m_hooks(std::move(hooks))
{
}

void
ProgramDriver::Validate() const
{
    m_hooks.validate();
    m_outputs.Validate();
    for (const auto& name : m_hooks.names)
    {
        if (name == "run" || name == "seed" || name == "out")
        {
            throw std::logic_error("parameter " + name + " is reserved for run control");
        }
        for (const auto& field : m_outputs.GetSummary())
        {
            if (field.name == name)
            {
                throw std::logic_error("summary field " + name + " repeats a parameter's name");
            }
        }
    }
    if (m_cost)
    {
        m_cost->Validate(m_hooks.describe());
    }
}

Json
ProgramDriver::Describe() const
{
    Validate();
    Json description(Json::Object{{"name", m_name},
                                  {"version", m_version},
                                  {"parameters", m_hooks.describe()},
                                  {"summary", m_outputs.DescribeSummary()},
                                  {"tables", m_outputs.DescribeTables()}});
    if (m_cost)
    {
        description.Set("cost", m_cost->Describe([this](const std::string& choice) {
            return m_hooks.parse({{m_cost->GetBy(), choice}}); // only the choice's presets
        }));
    }
    return description;
}

std::string
ProgramDriver::GetUsage() const
{
    const std::string indent(m_name.size() + 8, ' ');
    return "usage: " + m_name + " [--name=value ...] [--run=R] [--seed=S] [--out=FILE]\n" +
           indent + "--describe | --help\n\n" + m_name + " " + m_version + "\n\n" +
           "Parameters (--describe gives them as JSON):\n" + m_hooks.help() +
           "\nRun control (not parameters):\n" + RunFlag().GetHelpEntry() +
           SeedFlag().GetHelpEntry() +
           "  --out=FILE\n"
           "      Where the result (one JSON object) goes, written atomically: a temporary\n"
           "      file, then a rename (a device or a pipe, such as /dev/null, is written as\n"
           "      it is). Its directory must exist. Default: standard output.\n"
           "  --describe\n"
           "      Print the parameters and the output schema as one JSON object.\n"
           "  --help\n"
           "      Print this text.\n\n"
           "Exit codes: 0 done; 2 bad input (one line on stderr, nothing written); 1 other "
           "failures.\n";
}

void
ProgramDriver::WriteAtomically(const std::string& path, const std::string& text)
{
    // A device or a pipe (--out=/dev/null, a FIFO) is written as it is: a rename would put a
    // regular file in its place, which as root replaces the system's /dev/null.
    std::error_code status;
    const auto kind = std::filesystem::status(path, status).type();
    if (!status && kind != std::filesystem::file_type::regular &&
        kind != std::filesystem::file_type::not_found)
    {
        if (kind == std::filesystem::file_type::directory)
        {
            throw std::runtime_error("cannot write " + path + ": a directory");
        }
        std::ofstream file(path, std::ios::binary);
        file << text;
        file.flush();
        if (!file)
        {
            throw std::runtime_error("cannot write " + path);
        }
        return;
    }
    const auto temporary = path + ".tmp." + std::to_string(getpid());
    {
        std::ofstream file(temporary, std::ios::binary);
        file << text;
        file.flush();
        if (!file)
        {
            std::filesystem::remove(temporary);
            throw std::runtime_error("cannot write " + temporary);
        }
    }
    std::error_code error;
    std::filesystem::rename(temporary, path, error);
    if (error)
    {
        std::filesystem::remove(temporary);
        throw std::runtime_error("cannot rename " + temporary + " to " + path + ": " +
                                 error.message());
    }
}

int
ProgramDriver::Main(const std::vector<std::string>& args,
                    std::ostream& out,
                    std::ostream& err) const
{
    try
    {
        Validate();
        for (const auto& arg : args)
        {
            if (arg == "--help" || arg == "-h")
            {
                out << GetUsage();
                return 0;
            }
        }
        for (const auto& arg : args)
        {
            if (arg == "--describe")
            {
                out << Describe().Dump(2) << "\n";
                return 0;
            }
        }
    }
    catch (const std::exception& error)
    {
        err << m_name << ": internal error: " << error.what() << "\n";
        return 1;
    }
    return Run(args, out, err);
}

int
ProgramDriver::Run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) const
{
    uint64_t run = 1;
    uint32_t seed = 1;
    std::string outPath;
    Json params;
    try
    {
        std::vector<std::string> names = m_hooks.names;
        names.insert(names.end(), {"run", "seed", "out"});
        const CommandLine commandLine(args, names);
        if (const auto text = commandLine.Get("run"))
        {
            run = RunFlag().Parse(*text).GetUint64();
        }
        if (const auto text = commandLine.Get("seed"))
        {
            seed = static_cast<uint32_t>(SeedFlag().Parse(*text).GetUint64());
        }
        if (const auto text = commandLine.Get("out"))
        {
            if (text->empty())
            {
                throw UsageError("--out=: allowed: a file path");
            }
            outPath = *text;
        }
        params = m_hooks.parse(commandLine.GetFlagsExcept({"run", "seed", "out"}));
        const auto dir = outPath.empty() ? std::filesystem::current_path()
                                         : std::filesystem::absolute(outPath).parent_path();
        if (!std::filesystem::is_directory(dir))
        {
            throw UsageError("--out=" + outPath + ": directory " + dir.string() +
                             " does not exist");
        }
    }
    catch (const UsageError& error)
    {
        err << m_name << ": " << error.what() << "\n";
        return 2;
    }
    catch (const std::exception& error)
    {
        err << m_name << ": " << error.what() << "\n";
        return 1;
    }

    try
    {
        ns3::RngSeedManager::SetSeed(seed);
        ns3::RngSeedManager::SetRun(run);
        const Json output = m_hooks.run();
        if (!output.IsObject() || output.Find("params"))
        {
            throw std::logic_error("the run must return an object, without params");
        }
        Json result(Json::Object{{"params", params}});
        for (const auto& [key, value] : output.GetObject())
        {
            result.Set(key, value);
        }
        m_outputs.Check(result);
        const std::string text = result.Dump(1) + "\n";
        if (outPath.empty())
        {
            out << text;
        }
        else
        {
            WriteAtomically(outPath, text);
        }
    }
    catch (const std::exception& error)
    {
        err << m_name << ": " << error.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace satsweep
