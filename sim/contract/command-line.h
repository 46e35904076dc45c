/*
 * The `--name=value` arguments of one call of a program.
 */
#ifndef SATSWEEP_COMMAND_LINE_H
#define SATSWEEP_COMMAND_LINE_H

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace satsweep
{

/// One `--name=value` argument: the name (without the dashes) and the value text.
using Flag = std::pair<std::string, std::string>;

/**
 * @brief A program's arguments split into flags, checked for form, known names and repeats.
 */
class CommandLine
{
  public:
    /**
     * @param args the arguments after the program's name
     * @param allowed the names the program takes (without the dashes)
     * @throws UsageError on an argument not of the form `--name=value`, an unknown name (the
     *         message lists the allowed ones) or a name given twice
     */
    CommandLine(const std::vector<std::string>& args, std::vector<std::string> allowed);

    /// @return the flags in the order given
    const std::vector<Flag>& GetFlags() const;
    /// @return the value of flag @p name, if it was given
    std::optional<std::string> Get(const std::string& name) const;
    /// @return the flags in the order given, without those in @p names
    std::vector<Flag> GetFlagsExcept(const std::vector<std::string>& names) const;

    /**
     * @return the one-line error of an unknown flag: `--NAME: unknown flag; allowed: --a, --b`
     * @param name the unknown name
     * @param allowed the names allowed (listed sorted)
     */
    static std::string UnknownFlag(const std::string& name, std::vector<std::string> allowed);

  private:
    std::vector<Flag> m_flags; //!< the flags in the order given
};

} // namespace satsweep

#endif /* SATSWEEP_COMMAND_LINE_H */
