// The subcommands of nqc. Each add_X adds itself to the app and returns the function that runs
// it (after parsing) and yields the process exit code (nqc::ExitCode). Two programs share them
// (src/cli/CMakeLists.txt, docs/cli.md, "Start-up"): nqc, which links neither MPI nor spdlog so
// that it starts in a millisecond or so, and nqc-mpi, which runs count and run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

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

/// verify, construct, generate, derive, convert (cmd_board.cpp); complete; randset ([Grigoryan]'s
/// randSet & randSet experiment); challenge (the paper's pair of compositions).
Runner add_verify(CLI::App& app);
Runner add_construct(CLI::App& app);
Runner add_generate(CLI::App& app);
Runner add_derive(CLI::App& app);
Runner add_convert(CLI::App& app);
Runner add_complete(CLI::App& app);
Runner add_randset(CLI::App& app);
Runner add_challenge(CLI::App& app);
/// count and run: on all MPI ranks; argc/argv are MPI_Init's (in nqc: nqc-mpi's).
Runner add_count(CLI::App& app, int& argc, char**& argv);
Runner add_run(CLI::App& app, int& argc, char**& argv);
/// Of result files: aggregate (the per-n table), rows (as CSV, what the analysis reads), rerun
/// and export (one case again), info (what they hold; with --constants, nqc's own constants).
Runner add_aggregate(CLI::App& app);
Runner add_rows(CLI::App& app);
Runner add_rerun(CLI::App& app);
Runner add_export(CLI::App& app);
Runner add_info(CLI::App& app);

/// complete's and count's input: a composition file, or a CSPLib .param file (the first
/// `diags` excluded diagonals); "-" is standard input, either of the two (told apart by content).
Composition load_instance(const std::string& file, std::optional<int> diags);

/// Accepts a finite number >= 0 (CLI11's NonNegativeNumber lets "nan" through and unsigned
/// options would wrap "-1").
extern const CLI::Validator kNonNegative;
/// Accepts a decimal integer 0..2^64-1 (CLI11 clamps larger values to the maximum).
extern const CLI::Validator kUnsigned;

/// An option of a number >= 0 (kUnsigned for integers, kNonNegative for doubles), its default
/// shown in --help.
template <class T>
CLI::Option* add_number(CLI::App* cmd, const std::string& name, T& value, const std::string& help) {
  return cmd->add_option(name, value, help)
      ->capture_default_str()
      ->check(std::is_integral_v<T> ? kUnsigned : kNonNegative);
}

/// Writes `text` to the file `path` (or stdout for "-") as TextOutput does: replaced whole or
/// not at all. Throws as TextOutput.
void write_text(const std::filesystem::path& path, const std::string& text);

/// Refuses "-" for an option naming results: a result file or a results directory is read by
/// name (HDF5, a directory). Throws nqc::InputError.
inline void refuse_std_stream_results(const std::string& option, const std::string& value) {
  refuse_std_stream(option, value, "a result file or results directory (they are read by name); give a path", true);
}

}  // namespace nqc::cli
