/*
 * A bad command line: the program exits with code 2.
 */
#ifndef SATSWEEP_USAGE_ERROR_H
#define SATSWEEP_USAGE_ERROR_H

#include <stdexcept>

namespace satsweep
{

/**
 * @brief Bad input on the command line: the message names the flag and what is allowed.
 *
 * Its text is the one line a program prints on stderr (after its name) before exiting with
 * code 2, e.g. `--clients=0: allowed: an integer >= 1`.
 */
class UsageError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

} // namespace satsweep

#endif /* SATSWEEP_USAGE_ERROR_H */
