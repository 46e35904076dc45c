// satnet: TCP over ATM-UBR+ satellite links (Goyal, Jain, Kota et al. 1998) in ns-3.
// Parameters in as --name=value flags, one JSON result out; `satnet --help` lists the flags.
// Exit codes: 0 done, 2 bad command line (nothing written), 1 anything else.
#include "scenario/satnet-config.h"
#include "scenario/satnet-scenario.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <unistd.h>

namespace
{

/// Writes @p text to @p path through a temporary file and a rename: readers never see half.
void
WriteAtomically(const std::filesystem::path& path, const std::string& text)
{
    const auto temporary = path.string() + ".tmp." + std::to_string(getpid());
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
    std::filesystem::rename(temporary, path);
}

} // namespace

int
main(int argc, char* argv[])
{
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (const auto& arg : args)
    {
        if (arg == "--help" || arg == "-h")
        {
            std::cout << satnet::Usage();
            return 0;
        }
    }
    satnet::Config config;
    try
    {
        config = satnet::ParseCommandLine(args);
        const auto dir = config.out.empty()
                             ? std::filesystem::current_path()
                             : std::filesystem::absolute(config.out).parent_path();
        if (!std::filesystem::is_directory(dir))
        {
            throw satnet::UsageError("--out=" + config.out + ": directory " + dir.string() +
                                     " does not exist");
        }
    }
    catch (const satnet::UsageError& error)
    {
        std::cerr << "satnet: " << error.what() << "\n";
        return 2;
    }

    try
    {
        const std::string text = satnet::RunScenario(config).Dump(1) + "\n";
        if (config.out.empty())
        {
            std::cout << text;
        }
        else
        {
            WriteAtomically(config.out, text);
        }
    }
    catch (const std::exception& error)
    {
        std::cerr << "satnet: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
