// What `nqc run --dry-run` prints: the plan's counts and per-n estimate, as text for a person
// or (--json) as one JSON object for scripts (jobs/submit), from one estimate_plan.
#pragma once

#include <cstdint>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "experiment/config.hpp"
#include "experiment/plan.hpp"

namespace nqc {

/// What a dry run found: the config file as given, the loaded config (output absolute), its
/// plan, and the shard files of this config already in the results directory.
struct DryRun {
  std::filesystem::path config_file;
  const ExperimentConfig& config;
  const Plan& plan;
  bool has_shards = false;        ///< DIR/shards exists
  std::uint64_t shards_done = 0;  ///< shard files there
  bool finished = false;          ///< every shard there and DIR/results.h5 merged: a run has nothing to do
};

/// The text: "config FILE: S shards, C cases, output DIR", the table of estimate_plan (n,
/// shards, cases, est. CPU s; a total row with core-hours), and, when DIR/shards exists,
/// "DIR holds N shard files of this config: --resume continues the run", or for a finished
/// run "DIR: the run of this config is finished (DIR/results.h5): nothing to do (--force
/// starts it over)", as the run says.
std::string dry_run_text(const DryRun& d);

/// The JSON object (one line on stdout): config and output (absolute, symbolic links
/// resolved), name, shards, cases, shards_done, finished, and the estimate: by_n (a list of {n, shards,
/// cases, cpu_seconds}), cpu_seconds, core_hours. Keys are only ever added (jobs/submit reads
/// config, name, output, shards, cases).
nlohmann::json dry_run_json(const DryRun& d);

}  // namespace nqc
