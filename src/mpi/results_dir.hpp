// The results directory of a run (README, "Experiments"): what a launch checks and
// writes there before any shard runs, and at the merge. Rank 0 only; no MPI.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "experiment/config.hpp"
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"

namespace nqc {

/// What prepare_directory returns for a directory whose run of this config is finished.
inline const std::string kRunFinished = "finished";

/// Makes DIR usable for this run and lists the shards already done there. Returns an error
/// message, empty when fine, or kRunFinished. Every shard and partial file is read first
/// (attributes and row count: a damaged one is named, with the remedy); then DIR/config.json
/// (another config's results, or damaged: --repair rewrites what the result files vouch
/// for), results without `resume`, DIR/plan.json (the pinned plan: a change is refused), and
/// each file against the plan. `dry`: only look (no directory made, nothing written or
/// removed). Writes config.json at every launch (the same text when it was right: the write
/// is also the check that the directory is writable, before any shard runs) and plan.json
/// when it is missing or repaired.
std::string prepare_directory(const std::filesystem::path& dir, const std::string& config_text, const PinnedPlan& pinned,
                              const Plan& plan, bool resume, bool repair, bool dry, std::vector<std::uint64_t>& done);

/// At the merge: the instance files and DIR/plan.json still as the launch pinned them.
/// Returns an error message, empty when unchanged.
std::string check_plan_unchanged(const std::filesystem::path& dir, const ExperimentConfig& config, const PinnedPlan& pinned);

/// The finished cases of an interrupted run of `shard` (its partial file), or none. A partial
/// file that cannot be read or is not a prefix of the shard is set aside with a warning: the
/// shard then runs from its start, which gives the same rows.
ShardData load_partial(const std::filesystem::path& dir, const Shard& shard);

}  // namespace nqc
