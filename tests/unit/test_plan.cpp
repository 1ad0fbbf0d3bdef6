#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

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

// Large cases: a shard holds what fits in shard_seconds (30 s) of estimated work, at least
// one case: n = 10^8 (39.4 s per case) gives a shard per case, n = 3*10^6 (0.698 s) splits
// each solution's 100 compositions into runs of 42; case ids stay those of plan order.
TEST(Plan, LargeCasesSplitSolutionsAcrossShards) {
  const Plan p = make_plan(parse_config(nlohmann::json::parse(R"({"name": "t",
      "sizes": [{"n": 100000000, "solutions": 2, "compositions_per_solution": 3},
                {"n": 3000000, "solutions": 1, "compositions_per_solution": 100},
                {"n": 1000000, "solutions": 2, "compositions_per_solution": 100}]})"),
                                        "t.json"));
  ASSERT_EQ(p.shards.size(), 6u + 3u + 2u);
  for (std::size_t i = 0; i < 6; ++i) {
    const Shard& s = p.shards[i];
    EXPECT_EQ(s.case_count(), 1u);
    EXPECT_EQ(s.first_solution, i / 3);
    EXPECT_EQ(s.first_composition, i % 3);
    EXPECT_EQ(s.first_case, i);
    EXPECT_EQ(s.case_id(s.first_solution, s.first_composition), i);
  }
  EXPECT_EQ(p.shards[6].first_composition, 0u);
  EXPECT_EQ(p.shards[6].composition_count, 42u);
  EXPECT_EQ(p.shards[7].first_composition, 42u);
  EXPECT_EQ(p.shards[8].first_composition, 84u);
  EXPECT_EQ(p.shards[8].composition_count, 16u);
  EXPECT_EQ(p.shards[8].case_id(0, 99), 6u + 99u);
  // n = 10^6 (0.197 s): 152 cases fit a shard, so whole solutions of 100 compositions, one per shard.
  EXPECT_EQ(p.shards[9].solution_count, 1u);
  EXPECT_EQ(p.shards[9].composition_count, 100u);
  EXPECT_EQ(p.shards[10].first_case, 6u + 100u + 100u);
  EXPECT_EQ(p.total_cases, 6u + 100u + 200u);
  // A shard's cost is its estimated seconds: at most shard_seconds, unless it is one case.
  for (const Shard& s : p.shards)
    if (s.case_count() > 1) {
      EXPECT_LE(s.cost, 30.0);
    }
  EXPECT_DOUBLE_EQ(p.shards[0].cost, estimated_case_seconds("auto", 100000000));
}

// Fast cases: shard_seconds would take 1.48 million cases of n = 8; shard_cases (100,000 by
// default) bounds them; a smaller shard_seconds gives smaller shards.
TEST(Plan, ShardSizeFollowsTheCostEstimate) {
  const auto plan = [](const std::string& extra) {
    return make_plan(parse_config(nlohmann::json::parse(R"({"name": "t", )" + extra + R"(
        "sizes": [{"n": 8, "solutions": 3000, "compositions_per_solution": 100}]})"),
                                  "t.json"));
  };
  EXPECT_EQ(plan("").shards.size(), 3u);  // 1000 solutions per shard
  EXPECT_EQ(plan("").shards[0].case_count(), 100000u);
  EXPECT_EQ(plan(R"("shard_seconds": 1,)").shards[0].case_count(),
            49300u);  // floor(1 / 2.027e-5) = 49331 -> 493 solutions
  EXPECT_EQ(plan(R"("shard_cases": 1000,)").shards.size(), 300u);
}

// Each engine's registry row carries its cost per case: grigoryan's backtracking makes it
// 5.8x auto's at n = 1000 (5.2e-4 s against 9e-5 s), so its shards hold fewer cases and its
// shards' costs (what the schedule, the ETA and --dry-run use) are its own.
TEST(Plan, ShardSizeAndCostFollowTheEngine) {
  const auto plan = [](const std::string& engine) {
    return make_plan(parse_config(nlohmann::json::parse(R"({"name": "t", "engine": ")" + engine + R"(",
        "sizes": [{"n": 1000, "solutions": 1000, "compositions_per_solution": 100}]})"),
                                  "t.json"));
  };
  EXPECT_DOUBLE_EQ(estimated_case_seconds("auto", 1000), 9e-5);
  EXPECT_DOUBLE_EQ(estimated_case_seconds("grigoryan", 1000), 5.2e-4);
  const Plan a = plan("auto"), g = plan("grigoryan");
  EXPECT_EQ(a.shards[0].case_count(), 100000u);  // floor(30 / 9e-5) = 333,333: shard_cases bounds it
  EXPECT_EQ(g.shards[0].case_count(), 57600u);   // floor(30 / 5.2e-4) = 57,692 -> 576 solutions
  EXPECT_EQ(g.shards.size(), 2u);
  EXPECT_DOUBLE_EQ(g.shards[0].cost, 57600 * 5.2e-4);
  EXPECT_NEAR(estimate_plan(g).cpu_seconds, 100000 * 5.2e-4, 1e-9);
  EXPECT_NEAR(estimate_plan(a).cpu_seconds, 100000 * 9e-5, 1e-9);
  EXPECT_THROW((void)estimated_case_seconds("nope", 1000), std::invalid_argument);
}

TEST(Plan, ScheduleTakesLargestCostFirst) {
  const Plan p = make_plan(config());
  const auto order = schedule_order(p);
  ASSERT_EQ(order.size(), p.shards.size());
  EXPECT_EQ(std::set<std::uint64_t>(order.begin(), order.end()).size(), order.size());
  EXPECT_EQ(p.shards[order[0]].n, 1000);
  for (std::size_t i = 1; i < order.size(); ++i) EXPECT_GE(p.shards[order[i - 1]].cost, p.shards[order[i]].cost);
}

TEST(Plan, PartsAreDisjointCoverThePlanAndShareTheLargeShards) {
  const Plan p = make_plan(config());
  const auto order = schedule_order(p);
  for (const std::uint64_t parts : {1u, 2u, 3u, 7u, 100u}) {
    std::vector<std::uint64_t> all;
    for (std::uint64_t part = 0; part < parts; ++part) {
      const auto mine = part_order(p, part, parts);
      // Position j of part `part` is position part + j*parts of the schedule.
      for (std::size_t j = 0; j < mine.size(); ++j) EXPECT_EQ(mine[j], order[part + j * parts]);
      all.insert(all.end(), mine.begin(), mine.end());
    }
    std::sort(all.begin(), all.end());
    std::vector<std::uint64_t> ids(p.shards.size());
    std::iota(ids.begin(), ids.end(), 0);
    EXPECT_EQ(all, ids) << parts << " parts";
  }
  // The two largest shards go to different parts.
  EXPECT_EQ(part_order(p, 0, 2).front(), order[0]);
  EXPECT_EQ(part_order(p, 1, 2).front(), order[1]);
}

// --dry-run's numbers: per n its shards, cases and estimated CPU seconds, and their sum.
TEST(Plan, EstimateCountsShardsAndCasesPerSize) {
  const Plan p = make_plan(config());
  const PlanEstimate e = estimate_plan(p);
  ASSERT_EQ(e.by_n.size(), 2u);
  EXPECT_EQ(e.by_n[0].n, 8);
  EXPECT_EQ(e.by_n[0].shards, 4u);  // 3 of group 0, 1 of group 1
  EXPECT_EQ(e.by_n[0].cases, 5u * 4 + 2 * 3);
  EXPECT_EQ(e.by_n[1].n, 1000);
  EXPECT_EQ(e.by_n[1].shards, 3u);
  EXPECT_EQ(e.by_n[1].cases, 5u * 4);
  EXPECT_DOUBLE_EQ(e.by_n[0].cpu_seconds, 26 * estimated_case_seconds("auto", 8));
  EXPECT_DOUBLE_EQ(e.by_n[1].cpu_seconds, 20 * estimated_case_seconds("auto", 1000));
  EXPECT_DOUBLE_EQ(e.cpu_seconds, e.by_n[0].cpu_seconds + e.by_n[1].cpu_seconds);
  EXPECT_DOUBLE_EQ(e.core_hours(), e.cpu_seconds / 3600);
}

// Instance shards may mix sizes: a shard counts for every n it holds a case of, each case once.
TEST(Plan, EstimateCountsAMixedInstanceShardForEachOfItsSizes) {
  Plan p;
  for (const Index n : {10, 40, 10, 40, 40}) p.instance_cases.push_back({"f", 0, 0, n, false});
  p.total_cases = 5;
  for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{{0, 3}, {3, 2}}) {
    Shard s;
    s.id = p.shards.size();
    s.origin = Origin::instance;
    s.first_solution = s.first_case = first;
    s.solution_count = count;
    s.composition_count = 1;
    s.cost = 2.0 * static_cast<double>(count);  // 2 s per case (instance_case_seconds: time_limit_s 2)
    p.shards.push_back(s);
  }
  const PlanEstimate e = estimate_plan(p);
  ASSERT_EQ(e.by_n.size(), 2u);
  EXPECT_EQ(e.by_n[0].n, 10);
  EXPECT_EQ(e.by_n[0].shards, 1u);
  EXPECT_EQ(e.by_n[0].cases, 2u);
  EXPECT_EQ(e.by_n[1].n, 40);
  EXPECT_EQ(e.by_n[1].shards, 2u);
  EXPECT_EQ(e.by_n[1].cases, 3u);
  // Each case at its shard's cost per case, whichever its size.
  EXPECT_DOUBLE_EQ(e.by_n[0].cpu_seconds, 4.0);
  EXPECT_DOUBLE_EQ(e.by_n[1].cpu_seconds, 6.0);
  EXPECT_DOUBLE_EQ(e.cpu_seconds, 10.0);
}

}  // namespace
}  // namespace nqc
