// The results directory of a run (docs/configs.md): what a launch checks and
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

/// What prepare_directory found.
enum class DirectoryState {
  ready,     ///< the run goes on (`done` lists the shards already there)
  finished,  ///< this config's run is finished there (every shard and results.h5): nothing to do, nothing written
};

/// Makes DIR usable for this run and lists the shards already done there. Every shard and
/// partial file is read first (attributes and row count: a damaged one is named, with the
/// remedy); then DIR/config.json (another config's results, or damaged: --repair rewrites
/// what the result files vouch for), results without `resume`, DIR/plan.json (the pinned
/// plan: a change is refused), and each file against the plan. `dry`: only look (no
/// directory made, nothing written or removed). Writes config.json at every launch (the same
/// text when it was right: the write is also the check that the directory is writable,
/// before any shard runs) and plan.json when it is missing or repaired. Throws
/// nqc::InputError for what the directory holds (another config's results, damage, a
/// changed plan, results without --resume; DIR a path through a file), nqc::IoError (or
/// h5::Error) when the system refuses a read or write ("DIR: cannot write to the results
/// directory: Read-only file system").
DirectoryState prepare_directory(const std::filesystem::path& dir, const std::string& config_text,
                                 const PinnedPlan& pinned, const Plan& plan, bool resume, bool repair, bool dry,
                                 std::vector<std::uint64_t>& done);

/// Removes the temporary files that writers killed part-way left in DIR (results.h5.*.tmp)
/// and DIR/shards ({shard,partial}-N.h5.*.tmp; each writer names its own). Only under the
/// whole run's lock: no other launch may be writing. Errors are ignored (a file that stays
/// is only clutter: readers skip it).
void remove_temporaries(const std::filesystem::path& dir);

/// --force: removes this config's run from DIR, under the lock, before prepare_directory:
/// results.h5, plan.json, launches/ and the files nqc writes in shards/ (shard-N.h5,
/// partial-N.h5, their *.tmp files); nothing else (a user's files stay). Refuses (nqc::InputError,
/// nothing removed) when DIR holds another config's run: DIR/config.json a valid config that
/// is not this one, or a result file there whose config_hash is another's; a damaged result
/// file of nqc's name is removed. nqc::IoError when a removal fails.
void remove_run_for_force(const std::filesystem::path& dir, const std::string& config_text,
                          const std::string& config_hash);

/// At the merge: the instance files and DIR/plan.json still as the launch pinned them.
/// Throws nqc::InputError naming what changed (or DIR/plan.json damaged), with what to do;
/// nqc::IoError when a file cannot be read.
void check_plan_unchanged(const std::filesystem::path& dir, const ExperimentConfig& config, const PinnedPlan& pinned);

/// The finished cases of an interrupted run of `shard` (its partial file), or none. A partial
/// file that cannot be read or is not a prefix of the shard is set aside with a warning: the
/// shard then runs from its start, which gives the same rows.
ShardData load_partial(const std::filesystem::path& dir, const Shard& shard);

}  // namespace nqc
