// The subcommands of the `nqc` executable. Each adds itself to the app and returns the
// function that runs it (after parsing) and yields the process exit code (nqc::ExitCode).
//
// Two programs share them (src/cli/CMakeLists.txt, docs/cli.md, "Start-up"): nqc, the one users run,
// links neither MPI nor spdlog, so that it starts and ends in 1.5 ms; the two subcommands
// that need MPI, count and run, are run by nqc-mpi, which nqc becomes (execv: the same process,
// arguments, environment and standard streams) before parsing anything (cli/front_end.cpp).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "core/composition.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {

using Runner = std::function<int()>;

/// In nqc: when argv[1] is a subcommand that needs MPI (count, run), becomes nqc-mpi with the
/// same arguments (never returns; throws nqc::IoError when nqc-mpi cannot be run). Else, and
/// always in nqc-mpi, returns.
void hand_over_mpi_subcommand(int argc, char** argv);
/// count's and run's one-line descriptions: both programs list them (nqc --help).
inline constexpr const char* kCountSummary =
    "Count the completions of a composition file, or Q(N) for the empty N x N board (under mpirun: on all ranks)";
inline constexpr const char* kRunSummary =
    "Run an experiment config (under mpirun: on all ranks) and write HDF5 results";

/// verify, construct, generate, derive: single compositions and solutions; convert: a
/// composition file into another format.
Runner add_verify(CLI::App& app);
Runner add_construct(CLI::App& app);
Runner add_generate(CLI::App& app);
Runner add_derive(CLI::App& app);
Runner add_convert(CLI::App& app);
/// complete: one composition through one engine; count: its completions (Q(N) on all MPI
/// ranks under mpirun). add_count takes argc/argv for MPI_Init (in nqc: for nqc-mpi).
Runner add_complete(CLI::App& app);
Runner add_count(CLI::App& app, int& argc, char**& argv);
/// complete's and count's input: a composition file, or a CSPLib .param file (the first
/// `diags` excluded diagonals); "-" is standard input, either of the two (told apart by content).
Composition load_instance(const std::string& file, std::optional<int> diags);
/// randset: [Grigoryan]'s randSet & randSet experiment.
Runner add_randset(CLI::App& app);
/// run: an experiment config on all MPI ranks. Takes argc/argv for MPI_Init (in nqc: for nqc-mpi).
Runner add_run(CLI::App& app, int& argc, char**& argv);
/// aggregate: per-n table of result files.
Runner add_aggregate(CLI::App& app);
/// rows: the rows of result files as CSV, every check of nqc's reader (what the analysis reads).
Runner add_rows(CLI::App& app);

/// Accepts a finite number >= 0 (CLI11's NonNegativeNumber lets "nan" through and
/// unsigned options would wrap "-1").
extern const CLI::Validator kNonNegative;
/// Accepts a decimal integer 0..2^64-1 (CLI11 clamps larger values to the maximum).
extern const CLI::Validator kUnsigned;

/// Refuses "-" (standard input) for an option naming results: a result file or a results
/// directory is read by name (HDF5, a directory). Throws nqc::InputError.
inline void refuse_std_stream_results(const std::string& option, const std::string& value) {
  refuse_std_stream(option, value, "a result file or results directory (they are read by name); give a path", true);
}

/// rerun, export: one case of a result file.
Runner add_rerun(CLI::App& app);
Runner add_export(CLI::App& app);
/// info: what a result file or results directory holds (config, cases by n and outcome, launches).
Runner add_info(CLI::App& app);

/// challenge: the paper's pair of compositions at large n, one without completion.
Runner add_challenge(CLI::App& app);

/// nqc-mpi only (cli/logging.cpp). Sets the spdlog default logger: stderr, "[time] [rank R] [level] message", at
/// `level` (warn when `quiet`); and kSummaryLogger (runner/runner.hpp) on the same sink, at info when `quiet`, so that
/// -q keeps the end-of-launch summary.
void setup_logging(int rank, const std::string& level, bool quiet);

}  // namespace nqc::cli
