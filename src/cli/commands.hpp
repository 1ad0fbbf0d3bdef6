// The subcommands of nqc and nqc-mpi: each add_X returns the function that runs it (its exit code).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <type_traits>

#include <CLI/CLI.hpp>

#include <nlohmann/json.hpp>

#include "core/composition.hpp"
#include "experiment/results.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {

using Runner = std::function<int()>;

/// In nqc: becomes nqc-mpi when argv[1] is count or run (throws nqc::IoError when it cannot).
void hand_over_mpi_subcommand(int argc, char** argv);
/// count's and run's one-line descriptions: both programs list them (nqc --help).
inline constexpr const char* kCountSummary =
    "Count the completions of a composition file, or Q(N) for the empty N x N board (under mpirun: on all ranks)";
inline constexpr const char* kRunSummary =
    "Run an experiment config (under mpirun: on all ranks) and write HDF5 results";

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
Runner add_aggregate(CLI::App& app);
Runner add_rows(CLI::App& app);
Runner add_rerun(CLI::App& app);
Runner add_export(CLI::App& app);
Runner add_info(CLI::App& app);

/// A composition file, or a CSPLib .param file (its first `diags` diagonals); "-": stdin, either.
Composition load_instance(const std::string& file, std::optional<int> diags);

/// The `config` attribute of `attrs`, parsed ({} without one). Throws InputError naming `file`.
nlohmann::json config_attribute(const Attributes& attrs, const std::filesystem::path& file);

/// Whether `path` is a results directory without results.h5: a run in progress or interrupted.
bool is_unfinished_run(const std::filesystem::path& path);

/// A finite number >= 0 (CLI11's NonNegativeNumber lets "nan" through; unsigned options wrap "-1").
extern const CLI::Validator kNonNegative;
/// A decimal integer 0..2^64-1 (CLI11 clamps larger values to the maximum).
extern const CLI::Validator kUnsigned;

/// An option of a number >= 0 (kUnsigned, kNonNegative), its default shown in --help.
template <class T>
CLI::Option* add_number(CLI::App* cmd, const std::string& name, T& value, const std::string& help) {
  return cmd->add_option(name, value, help)
      ->capture_default_str()
      ->check(std::is_integral_v<T> ? kUnsigned : kNonNegative);
}

/// Writes `text` to `path` ("-": stdout) through TextOutput (replaced whole or not at all).
void write_text(const std::filesystem::path& path, const std::string& text);

/// Refuses "-" for an option naming results (read by name). Throws nqc::InputError.
inline void refuse_std_stream_results(const std::string& option, const std::string& value) {
  refuse_std_stream(option, value, "a result file or results directory (they are read by name); give a path", true);
}

}  // namespace nqc::cli
