// The plan: a config expanded into an ordered list of shards of cases (DESIGN.md, "plan").
#pragma once

#include <cstdint>
#include <vector>

#include "experiment/config.hpp"

namespace nqc {

/// A contiguous range of cases of one n: solutions [first_solution, first_solution +
/// solution_count) with all their compositions. Case ids are consecutive within a shard.
struct Shard {
  std::uint64_t id = 0;
  Index n = 0;
  std::uint64_t first_solution = 0;
  std::uint64_t solution_count = 0;
  std::uint64_t compositions_per_solution = 0;
  std::uint64_t first_case = 0;  ///< case id of (first_solution, composition 0)
  double cost = 0.0;             ///< expected cost, arbitrary units (for scheduling only)

  [[nodiscard]] std::uint64_t case_count() const { return solution_count * compositions_per_solution; }
};

/// All shards of a config, in plan order (sizes groups in order, n in order, solutions in
/// order). Ids and case ids are pure functions of the config, so reruns and resumes find the
/// same ones. A board size listed twice gets two disjoint blocks of solution ids.
struct Plan {
  std::vector<Shard> shards;
  std::uint64_t total_cases = 0;
};

/// Expands a config. Each shard holds max(1, shard_cases / compositions_per_solution) whole
/// solutions. The cost estimate of a shard is cases * (n + 100), linear in n as the engines.
Plan make_plan(const ExperimentConfig& config);

/// Indices into plan.shards, largest expected cost first (ties by id): the order in which
/// ranks take shards.
std::vector<std::uint64_t> schedule_order(const Plan& plan);

}  // namespace nqc
