#include <gtest/gtest.h>

#include <set>

#include "experiment/plan.hpp"

namespace nqc {
namespace {

ExperimentConfig config() {
  return parse_config(nlohmann::json::parse(R"({"name": "t", "shard_cases": 10,
      "sizes": [{"n": [8, 1000], "solutions": 5, "compositions_per_solution": 4},
                {"n": 8, "solutions": 2, "compositions_per_solution": 3}]})"),
                      "t.json");
}

TEST(Plan, ShardsCoverEveryCaseOnceWithStableIds) {
  const Plan p = make_plan(config());
  // per_shard = 10 / 4 = 2 solutions: 3 shards for each n of group 0; group 1: 10/3 = 3 -> 1.
  ASSERT_EQ(p.shards.size(), 7u);
  EXPECT_EQ(p.total_cases, 5u * 4 * 2 + 2 * 3);
  std::uint64_t next = 0;
  for (std::size_t i = 0; i < p.shards.size(); ++i) {
    EXPECT_EQ(p.shards[i].id, i);
    EXPECT_EQ(p.shards[i].first_case, next);
    next += p.shards[i].case_count();
  }
  EXPECT_EQ(next, p.total_cases);
  // n = 8 listed twice: the second group continues the solution ids.
  EXPECT_EQ(p.shards[6].n, 8);
  EXPECT_EQ(p.shards[6].first_solution, 5u);
  EXPECT_EQ(p.shards[2].solution_count, 1u);
  // Same config, same plan.
  const Plan q = make_plan(config());
  for (std::size_t i = 0; i < p.shards.size(); ++i) EXPECT_EQ(p.shards[i].first_case, q.shards[i].first_case);
}

TEST(Plan, ScheduleTakesLargestCostFirst) {
  const Plan p = make_plan(config());
  const auto order = schedule_order(p);
  ASSERT_EQ(order.size(), p.shards.size());
  EXPECT_EQ(std::set<std::uint64_t>(order.begin(), order.end()).size(), order.size());
  EXPECT_EQ(p.shards[order[0]].n, 1000);
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_GE(p.shards[order[i - 1]].cost, p.shards[order[i]].cost);
}

}  // namespace
}  // namespace nqc
