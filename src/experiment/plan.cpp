#include "experiment/plan.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace nqc {

Plan make_plan(const ExperimentConfig& config) {
  Plan plan;
  std::map<Index, std::uint64_t> solutions_used;  // next free solution id per n
  for (const SizeGroup& group : config.sizes) {
    const std::uint64_t per_shard = std::max<std::uint64_t>(1, config.shard_cases / group.compositions_per_solution);
    for (const Index n : group.n) {
      std::uint64_t& base = solutions_used[n];
      for (std::uint64_t s = 0; s < group.solutions; s += per_shard) {
        Shard shard;
        shard.id = plan.shards.size();
        shard.n = n;
        shard.first_solution = base + s;
        shard.solution_count = std::min(per_shard, group.solutions - s);
        shard.compositions_per_solution = group.compositions_per_solution;
        shard.first_case = plan.total_cases;
        shard.cost = static_cast<double>(shard.case_count()) * (static_cast<double>(n) + 100.0);
        plan.total_cases += shard.case_count();
        plan.shards.push_back(shard);
      }
      base += group.solutions;
    }
  }
  return plan;
}

std::vector<std::uint64_t> schedule_order(const Plan& plan) {
  std::vector<std::uint64_t> order(plan.shards.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::uint64_t a, std::uint64_t b) {
    return plan.shards[a].cost > plan.shards[b].cost;
  });
  return order;
}

}  // namespace nqc
