// The plan: a config expanded into an ordered list of shards of cases (docs/configs.md, "Cases and shards").
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/config.hpp"

namespace nqc {

/// Consecutive cases of one n: solution_count solutions from first_solution, each with
/// composition_count compositions from first_composition. Other generated origins: one
/// "solution", the value of the origin's parameter, and a run of its samples.
struct Shard {
  std::uint64_t id = 0;
  Index n = 0;
  std::uint64_t first_solution = 0;
  std::uint64_t solution_count = 0;
  std::uint64_t compositions_per_solution = 0;
  std::uint64_t first_composition = 0;
  std::uint64_t composition_count = 0;
  std::uint64_t first_case = 0;     ///< case id of (first_solution, first_composition)
  double cost = 0.0;                ///< estimated CPU seconds: scheduling, shard sizes, ETA
  Origin origin = Origin::derived;  ///< instance: a shard of Plan::instance_cases [first_solution, +solution_count)

  [[nodiscard]] std::uint64_t case_count() const { return solution_count * composition_count; }
  /// Case id of (solution s, composition c) of this shard.
  [[nodiscard]] std::uint64_t case_id(std::uint64_t s, std::uint64_t c) const {
    return first_case + (s - first_solution) * composition_count + (c - first_composition);
  }
};

/// Estimated CPU seconds of one generated case of size n for `engine` (its CaseCost). Throws
/// std::invalid_argument for an unknown engine.
double estimated_case_seconds(std::string_view engine, Index n);

/// Estimated seconds of one instance case (hardness unknown): time_limit_s, or 1 s without one.
double instance_case_seconds(const ExperimentConfig& config);

/// The cases of a shard of size n: the most that fit shard_seconds (1 .. shard_cases), as whole
/// solutions when they fit, else runs of `compositions` of one solution.
struct ShardSize {
  std::uint64_t solutions = 1;
  std::uint64_t compositions = 1;
};
ShardSize shard_size(const ExperimentConfig& config, Index n, std::uint64_t compositions_per_solution);

/// One case of an instance config.
struct InstanceCase {
  std::string file;              ///< composition file or CSPLib .param file
  std::uint64_t file_index = 0;  ///< position of the file in the expanded file list
  int diags = 0;                 ///< for .param files: excluded diagonals used (0 for composition files)
  Index n = 0;
  bool param = false;
};

/// One file of an instance config as its plan found it.
struct InstanceFile {
  std::string path;         ///< absolute
  std::uint64_t bytes = 0;  ///< size
  std::string xxh64;        ///< XXH64 of the content, 16 hex digits
};

struct Plan {
  std::vector<Shard> shards;
  std::uint64_t total_cases = 0;
  std::vector<InstanceCase> instance_cases;  ///< the cases of an instance config, in case-id order
  std::vector<InstanceFile> instance_files;  ///< the files of an instance config, in file-index order
  /// canonical_compositions: per (n, k), the enumeration index of the first composition of each
  /// first queen's cell (canonical_first_cells order), then their number.
  std::map<std::pair<Index, Index>, std::vector<std::uint64_t>> canonical_starts;
};

/// The files of an instance config in file-index order (directories expanded, sorted) with
/// their sizes and hashes now. Throws nqc::InputError for an empty directory or a file twice.
std::vector<InstanceFile> instance_files_now(const ExperimentConfig& config);

/// Expands a config into shards in plan order; ids and case ids are pure functions of the
/// config. Throws nqc::InputError for a bad instance file, nqc::IoError for a refused read,
/// nqc::Error with kExitInterrupted when `stop` is set while counting canonical compositions.
Plan make_plan(const ExperimentConfig& config, const std::atomic<bool>* stop = nullptr);

/// Indices into plan.shards, largest expected cost first (ties by id): the ranks' order.
std::vector<std::uint64_t> schedule_order(const Plan& plan);

/// One board size of a plan: its shards, cases and estimated CPU seconds.
struct PlanSize {
  Index n = 0;
  std::uint64_t shards = 0;
  std::uint64_t cases = 0;
  double cpu_seconds = 0;
};

/// A plan's sizes and estimate, what `nqc run --dry-run` prints (as text and as JSON).
struct PlanEstimate {
  std::vector<PlanSize> by_n;  ///< ascending n
  double cpu_seconds = 0;      ///< the sum over by_n
  [[nodiscard]] double core_hours() const { return cpu_seconds / 3600.0; }
};

/// The per-n breakdown of `plan`.
PlanEstimate estimate_plan(const Plan& plan);

/// The shards of part `part` of `parts`: positions p of schedule_order() with p mod parts = part.
std::vector<std::uint64_t> part_order(const Plan& plan, std::uint64_t part, std::uint64_t parts);

}  // namespace nqc
