// `nqc run`: a config expanded into shards, run by all ranks, written to result files.
#pragma once

#include <atomic>
#include <filesystem>
#include <optional>
#include <string>

#include "runner/session.hpp"

namespace nqc {

struct RunOptions {
  std::filesystem::path config;
  std::optional<std::string> output;  ///< overrides the config's "output"
  bool resume = false;                ///< continue a run in the same directory
  bool force = false;                 ///< start over: remove this config's results, shards and plan in DIR first
  bool repair = false;   ///< rewrite a damaged DIR/config.json or plan.json the result files vouch for (implies resume)
  bool dry_run = false;  ///< print the plan's counts, run nothing
  bool json = false;     ///< with dry_run: the plan as one JSON object (docs/cli.md; jobs/submit reads it)
  double progress_interval_s = 5.0;  ///< rank 0 logs progress this often (seconds; 0 = never)
  std::uint64_t part = 0;            ///< run only part `part` (0-based) ...
  std::uint64_t parts = 1;           ///< ... of this many (part_order); >1 implies resume, no merge
};

/// The spdlog logger of the end-of-launch lines, kept at info under -q.
inline constexpr const char* kSummaryLogger = "nqc-summary";

/// Runs an experiment on every rank of `session` (docs/configs.md): every rank plans the config
/// (a dry run checks DIR and prints the plan); rank 0 locks and checks DIR (prepare_directory)
/// and registers the launch; ranks take shards from a WorkCounter, written by a background
/// thread; rank 0 merges them into DIR/results.h5 (not for parts > 1) and logs the summary.
/// Returns the exit code, the same on every rank: 0 done, 1 bad input, 4 interrupted by `stop`,
/// 5 engine bug (its composition in DIR/engine-bug-case-ID.txt), 7 I/O, 8 out of memory; a failed
/// shard keeps its cases and no rank takes another. Collective: call on all ranks.
int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop);

}  // namespace nqc
