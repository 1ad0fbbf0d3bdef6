// The exception hierarchy outside the core, and the process exit codes (README, "The nqc executable").
#pragma once

#include <stdexcept>
#include <string>

namespace nqc {

/// Exit codes of the nqc executable.
enum ExitCode : int {
  kExitOk = 0,
  kExitBadInput = 1,     ///< bad input or usage, I/O failure
  kExitInfeasible = 2,   ///< the composition has no completion (proved)
  kExitGaveUp = 3,       ///< an engine gave up
  kExitInterrupted = 4,  ///< stopped by a signal; resume to continue
  kExitEngineBug = 5,    ///< an engine declared a derived (completable) composition infeasible
};

/// Bad input from a user: a file, a config, an argument. The message names the source
/// (file and row, or JSON path) and what was expected.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Reading or writing a file failed (the message names the file and the cause).
class IoError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace nqc
