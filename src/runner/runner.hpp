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

/// The spdlog logger of the end-of-launch lines (the summary, "the run ... is finished"):
/// setup_logging keeps it at info under -q, so that every launch ends with its summary.
inline constexpr const char* kSummaryLogger = "nqc-summary";

/// Runs an experiment on every rank of `session` (docs/configs.md): every rank loads the config
/// and its plan (a dry run then checks DIR and prints the plan, text or JSON); rank 0 takes the
/// directory's lock, checks what DIR holds (prepare_directory: a finished run ends here, with
/// nothing written) and registers the launch in DIR/launches; ranks take shards largest cost
/// first from a WorkCounter, each written atomically by a background thread; rank 0 merges the
/// shard files into DIR/results.h5 with the launches table. With parts > 1 (a job array) only
/// part_order(plan, part, parts) runs, resuming implicitly, without a merge. Ends with a summary
/// line on rank 0. Returns the exit code (nqc::ExitCode, the same on every rank): 0 done, 1 bad
/// input, 4 interrupted by `stop` (resume to continue), 7 the system refused a read or write.
/// An engine bug aborts every rank with exit code 5 after writing the composition to
/// DIR/engine-bug-case-ID.txt; any other failure inside a shard (out of memory: 8) aborts every
/// rank with its exit code after naming the shard. Collective: call on all ranks.
int run_experiment(const RunOptions& options, const MpiSession& session, const std::atomic<bool>& stop);

}  // namespace nqc
