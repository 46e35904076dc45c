#include "command-line.h"

#include "usage-error.h"

#include <algorithm>

namespace satsweep
{

CommandLine::CommandLine(const std::vector<std::string>& args, std::vector<std::string> allowed)
{
    for (const auto& arg : args)
    {
        const auto eq = arg.find('=');
        if (!arg.starts_with("--") || eq == std::string::npos || eq == 2)
        {
            throw UsageError(arg + ": flags take the form --name=value (see --help)");
        }
        const std::string name = arg.substr(2, eq - 2);
        if (std::find(allowed.begin(), allowed.end(), name) == allowed.end())
        {
            throw UsageError(UnknownFlag(name, allowed));
        }
        if (Get(name))
        {
            throw UsageError("--" + name + ": given twice");
        }
        m_flags.emplace_back(name, arg.substr(eq + 1));
    }
}

const std::vector<Flag>&
CommandLine::GetFlags() const
{
    return m_flags;
}

std::optional<std::string>
CommandLine::Get(const std::string& name) const
{
    for (const auto& [given, value] : m_flags)
    {
        if (given == name)
        {
            return value;
        }
    }
    return std::nullopt;
}

std::vector<Flag>
CommandLine::GetFlagsExcept(const std::vector<std::string>& names) const
{
    std::vector<Flag> flags;
    for (const auto& flag : m_flags)
    {
        if (std::find(names.begin(), names.end(), flag.first) == names.end())
        {
            flags.push_back(flag);
        }
    }
    return flags;
}

std::string
CommandLine::UnknownFlag(const std::string& name, std::vector<std::string> allowed)
{
    std::sort(allowed.begin(), allowed.end());
    std::string text = "--" + name + ": unknown flag; allowed:";
    for (size_t k = 0; k < allowed.size(); ++k)
    {
        text += (k ? ", --" : " --") + allowed[k];
    }
    return text;
}

} // namespace satsweep
