// Experiment configs: JSON in, a validated ExperimentConfig out (DESIGN.md, "Experiment config").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/composition.hpp"
#include "core/engine_options.hpp"
#include "core/sampling.hpp"

namespace nqc {

/// A group of board sizes sharing sample sizes: for each n, `solutions` random solutions and
/// `compositions_per_solution` compositions derived from each (000_*'s design).
struct SizeGroup {
  std::vector<Index> n;
  std::uint64_t solutions = 0;
  std::uint64_t compositions_per_solution = 0;
};

/// External instances instead of generated cases: composition files (text format) and
/// CSPLib prob079 .param files, each run once per entry of `diags` (.param files: the first
/// d excluded diagonals; -1 = all of them; composition files ignore it and run once).
struct InstanceSet {
  std::vector<std::string> files;  ///< as resolved against the config file's directory
  std::vector<int> diags{-1};
};

/// A validated experiment config. `resolved` is the config with every default filled in:
/// it is what result files store and what reruns and resumes compare.
struct ExperimentConfig {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::string engine = "auto";
  EngineOptions engine_options;  ///< from "engine_params", for engines that take some
  std::vector<SizeGroup> sizes;   ///< generated cases (empty when `instances` is used)
  InstanceSet instances;          ///< external instances (empty when `sizes` is used)
  KRange k;                    ///< k uniform on [min, max]; max -1 means n - 1
  double time_limit_s = 0.0;   ///< per case, 0 = none
  std::uint64_t max_nodes = 0; ///< per case, 0 = none
  double shard_seconds = 30.0;        ///< target estimated CPU seconds per shard (make_plan)
  std::uint64_t shard_cases = 100000; ///< at most this many cases per shard (whole solutions when they fit)
  std::string output;          ///< results directory
  nlohmann::json resolved;
};

/// Validates a parsed JSON config. Every error is an nqc::InputError
/// "SOURCE: JSON_PATH: what was expected", e.g. "demo.json: /sizes/0/n/2: expected an
/// integer n >= 1, got -5" or "demo.json: /shard_case: unknown key (valid keys: ...)".
ExperimentConfig parse_config(const nlohmann::json& j, const std::string& source);

/// Reads and validates a config file. Relative instance paths are resolved against the
/// directory of the config file. Throws nqc::InputError naming the file for a missing
/// file, invalid JSON (with line and column) or any validation error.
ExperimentConfig load_config(const std::filesystem::path& file);

/// The keys a config may have, with their defaults and meaning, as shown by `nqc run --help-config`.
std::string config_help();

}  // namespace nqc
