// The process exit codes (NQC_EXIT_CODES: the enum, `nqc --help`'s list and docs/cli.md's
// table, compared by test cli_exit_codes, follow from it) and the exceptions outside the core:
// every nqc::Error carries the exit code it ends the process with.
#pragma once

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace nqc {

// The exit codes: X(enumerator, value, name, meaning). Adding one: a row here, docs/cli.md's table
// ("The nqc executable") and, for a code a batch job must act on, jobs/templates/run.sh.
#define NQC_EXIT_CODES(X)                                                                                             \
  X(kExitOk, 0, "ok", "success: solved, written, counted, consistent, the run done (or finished before)")             \
  X(kExitBadInput, 1, "bad_input",                                                                                    \
    "bad input or usage: a config, an argument or a file whose content is wrong or damaged, a path that does not "    \
    "exist, a results directory that holds another config or is in use; also an error nqc does not classify")         \
  X(kExitInfeasible, 2, "infeasible",                                                                                 \
    "the composition has no completion (proved); construct, generate: no solution exists (N = 2, 3)")                 \
  X(kExitGaveUp, 3, "gave_up", "an engine gave up at a limit; count: a limit stopped the count (a lower bound)")      \
  X(kExitInterrupted, 4, "interrupted",                                                                               \
    "run stopped by SIGTERM, SIGINT or SIGUSR1 after the current case of each rank: rerun with --resume to continue") \
  X(kExitEngineBug, 5, "engine_bug",                                                                                  \
    "an engine declared a derived (completable) composition infeasible, or returned a completion the verifier "       \
    "rejects (run: no rank takes another shard, the shard's finished cases are kept, the composition is in "          \
    "DIR/engine-bug-case-ID.txt)")                                                                                    \
  X(kExitRerunDiffers, 6, "rerun_differs", "rerun: the outcome or the backtracks differ from the stored row")         \
  X(kExitIoError, 7, "io_error",                                                                                      \
    "the system refused a read or write: a full disk, a read-only file system, no permission, a quota, a failed "     \
    "fsync or rename, an I/O error (the message names the file and the system's reason)")                             \
  X(kExitOutOfMemory, 8, "out_of_memory",                                                                             \
    "out of memory: an allocation failed (run: no rank takes another shard, the shard's finished cases are kept; "    \
    "the log names the shard and its n)")

/// Exit codes of the nqc executable (NQC_EXIT_CODES).
enum ExitCode : int {
#define NQC_EXIT_ENUM(id, value, name, meaning) id = (value),
  NQC_EXIT_CODES(NQC_EXIT_ENUM)
#undef NQC_EXIT_ENUM
};

struct ExitCodeInfo {
  ExitCode code;
  std::string_view name;     ///< e.g. "io_error"
  std::string_view meaning;  ///< one sentence
};

/// Every exit code, by value.
inline constexpr std::array kExitCodes = {
#define NQC_EXIT_INFO(id, value, name, meaning) ExitCodeInfo{id, name, meaning},
    NQC_EXIT_CODES(NQC_EXIT_INFO)
#undef NQC_EXIT_INFO
};

/// The name of `code` ("io_error"), or "unknown" for a value not in the table.
std::string_view exit_code_name(int code);

/// "Exit codes:", then "  VALUE NAME  MEANING" per code (names padded to one column): nqc --help.
std::string exit_codes_text();

/// A subcommand's footer line: "Exit codes: 0 WHAT, ...; every subcommand: 1 bad_input, 7
/// io_error, 8 out_of_memory (nqc --help)." `own` are the codes particular to the subcommand,
/// each with what it means there.
std::string exit_codes_footer(std::initializer_list<std::pair<ExitCode, std::string_view>> own);

/// An error that ends the process with code() (main prints "nqc: error: what()"; `run` logs
/// it). Throw a subclass (or h5::Error, whose code follows its cause).
class Error : public std::runtime_error {
 public:
  Error(ExitCode code, const std::string& what) : std::runtime_error(what), code_(code) {}
  [[nodiscard]] ExitCode code() const noexcept { return code_; }

 private:
  ExitCode code_;
};

/// An nqc::Error of a fixed exit code.
template <ExitCode Code>
class ErrorOf : public Error {
 public:
  explicit ErrorOf(const std::string& what) : Error(Code, what) {}
};

/// Bad input from a user (exit 1); the message names the source and what was expected.
using InputError = ErrorOf<kExitBadInput>;
/// The system refused a read or write (exit 7); the message names the file and the reason.
using IoError = ErrorOf<kExitIoError>;
/// Out of memory (exit 8) where what() can name what did not fit, unlike std::bad_alloc.
using OutOfMemoryError = ErrorOf<kExitOutOfMemory>;

/// The exit code of a failed system call on a file the user named: bad input for a path that
/// names no usable file (ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP, EEXIST), out of memory for
/// ENOMEM and EAGAIN (a thread that could not start), else an I/O error.
ExitCode errno_exit_code(int error);

/// Throws `what + ": " + strerror(error)` as the class of errno_exit_code(error).
[[noreturn]] void throw_errno(const std::string& what, int error);

/// Throws `what` as the class of `code` (InputError, IoError, OutOfMemoryError; else nqc::Error).
[[noreturn]] void throw_error(ExitCode code, const std::string& what);

/// The exception being handled (inside a catch block) as an exit code and a message: nqc::Error's
/// own; bad_alloc 8; filesystem_error "PATH: REASON", system_error by errno; ios failure 7; else 1.
struct ErrorReport {
  ExitCode code = kExitBadInput;
  std::string message;
};
ErrorReport current_error();

}  // namespace nqc
