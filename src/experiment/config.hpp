// Experiment configs: JSON in, a validated ExperimentConfig out (docs/configs.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/composition.hpp"
#include "core/engine_options.hpp"
#include "core/sampling.hpp"
#include "experiment/case_row.hpp"

namespace nqc {

/// A group of board sizes sharing sample sizes: for each n, `solutions` random solutions and
/// `compositions_per_solution` compositions derived from each ([Grigoryan]'s design).
struct SizeGroup {
  std::vector<Index> n;
  std::uint64_t solutions = 0;
  std::uint64_t compositions_per_solution = 0;
};

/// Composition files and CSPLib .param files, the latter run once per entry of `diags` (-1 = all).
struct InstanceSet {
  std::vector<std::string> files;  ///< absolute once load_config resolved them (from the config file's directory)
  std::vector<int> diags;
};

/// Cases of the other origins: for each n and value of the origin's parameter, `samples` cases
/// (canonical: every canonical composition).
struct CaseGroup {
  std::vector<Index> n;
  std::vector<Index> values;
  std::uint64_t samples = 0;  ///< 0 for canonical
};

/// A validated experiment config, every default filled in. `resolved`: the config JSON with
/// every default, what result files store.
struct ExperimentConfig {
  std::string name;
  std::string description;
  std::uint64_t seed{};
  std::string engine;
  EngineOptions engine_options;     ///< from "engine_params", for engines that take some
  Origin origin = Origin::derived;  ///< which of the case keys the config has (exactly one)
  std::vector<SizeGroup> sizes;     ///< derived cases
  InstanceSet instances;            ///< external instances
  std::vector<CaseGroup> groups;    ///< cases of the other origins
  KRange k;                         ///< k uniform on [min, max]; max -1 means n - 1
  double time_limit_s{};            ///< per case, 0 = none
  std::uint64_t max_nodes{};        ///< per case, 0 = none
  double shard_seconds{};           ///< target estimated CPU seconds per shard (make_plan)
  std::uint64_t shard_cases{};      ///< at most this many cases per shard (whole solutions when they fit)
  std::string output;               ///< results directory (load_config: resolved from the config file's directory)
  nlohmann::json resolved;
  std::string source;  ///< the config's file (or what parse_config was given), for errors found later
};

/// Validates a parsed JSON config and fills every default in; paths stay as written. Throws
/// nqc::InputError "SOURCE: JSON_PATH: what was expected".
ExperimentConfig parse_config(const nlohmann::json& j, const std::string& source);

/// Reads and validates a config file; relative paths are taken from its directory. Throws
/// nqc::InputError naming the file, nqc::IoError when the system refuses the read.
ExperimentConfig load_config(const std::filesystem::path& file);

/// The keys a config may have, with defaults, help and engine parameters (`nqc run --help-config`).
std::string config_help();

/// The JSON Schema (draft-07) of configs (configs/nqc-config.schema.json).
nlohmann::ordered_json config_schema();

/// config_schema() as `nqc run --config-schema` prints it (2-space indent, final newline).
std::string config_schema_text();

}  // namespace nqc
