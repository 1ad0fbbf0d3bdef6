// The results directory of a run (docs/configs.md): what a launch checks and writes there
// before any shard runs, and at the merge. Rank 0 only; no MPI.
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

enum class DirectoryState {
  ready,     ///< the run goes on (`done` lists the shards already there)
  finished,  ///< this config's run is finished there (every shard and results.h5): nothing to do, nothing written
};

/// Checks DIR (which exists unless `dry`) for this run and lists its shards done in `done`: the
/// result files, config.json (`repair` rewrites what they vouch for), results.h5, results
/// without `resume`, plan.json and each file against the plan. Unless `dry` or finished, writes
/// config.json and (missing or repaired) plan.json. Throws nqc::InputError for what DIR holds,
/// nqc::IoError (or h5::Error) when the system refuses a read or write.
DirectoryState prepare_directory(const std::filesystem::path& dir, const std::string& config_text,
                                 const PinnedPlan& pinned, const Plan& plan, bool resume, bool repair, bool dry,
                                 std::vector<std::uint64_t>& done);

/// Removes the temporary files of killed writers (DIR/results.h5.*.tmp,
/// DIR/shards/{shard,partial}-N.h5.*.tmp), ignoring errors. Only under the whole run's lock.
void remove_temporaries(const std::filesystem::path& dir);

/// --force, under the lock: removes this config's run from DIR (results.h5, plan.json,
/// launches/, shards/{shard,partial}-N.h5 and their *.tmp files). Throws nqc::InputError, nothing
/// removed, when DIR holds another config's run; nqc::IoError when a removal fails.
void remove_run_for_force(const std::filesystem::path& dir, const std::string& config_text,
                          const std::string& config_hash);

/// At the merge: the instance files and DIR/plan.json still as the launch pinned them. Throws
/// nqc::InputError naming what changed (or plan.json damaged), nqc::IoError.
void check_plan_unchanged(const std::filesystem::path& dir, const ExperimentConfig& config, const PinnedPlan& pinned);

/// The finished cases of an interrupted run of `shard` (its partial file), or none: a partial
/// file that cannot be read or is not a prefix of the shard is removed with a warning.
ShardData load_partial(const std::filesystem::path& dir, const Shard& shard);

}  // namespace nqc
