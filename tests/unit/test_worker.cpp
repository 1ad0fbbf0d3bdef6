#include <gtest/gtest.h>

#include "printers.hpp"

#include <stdexcept>

#include "core/verifier.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/worker.hpp"

namespace nqc {
namespace {

ExperimentConfig config() {
  return parse_config(nlohmann::json::parse(R"({"name": "t", "seed": 5,
      "sizes": [{"n": 12, "solutions": 2, "compositions_per_solution": 3}]})"),
                      "t.json");
}

// An engine that answers what it is told, to check how the worker treats each answer.
class Scripted final : public Engine {
 public:
  explicit Scripted(Outcome outcome, bool corrupt = false) : outcome_(outcome), corrupt_(corrupt) {}
  // A registry name: a result row stores its engine as the registry's code.
  [[nodiscard]] std::string name() const override { return "exact"; }
  Result complete(const Composition& c, Rng& rng, const Limits&) override {
    Result r;
    r.outcome = outcome_;
    if (outcome_ == Outcome::solved) r = make_engine("exact")->complete(c, rng, {});
    if (corrupt_) std::swap(r.solution.q[0], r.solution.q[1]);  // still a permutation, now wrong
    if (outcome_ == Outcome::gave_up) r.limit = StopReason::max_nodes;
    return r;
  }

 private:
  Outcome outcome_;
  bool corrupt_;
};

TEST(Worker, DerivedCaseDeclaredInfeasibleIsAnEngineBug) {
  const ExperimentConfig cfg = config();
  const Shard shard = make_plan(cfg).shards[0];
  const Composition solution = sample_solution(cfg, 12, 0);
  const CaseInput in = derive_case(cfg, solution, 0, 1);
  Scripted liar(Outcome::infeasible);
  try {
    (void)run_case(cfg, liar, shard, 0, 1, in, 0, nullptr, nullptr);
    FAIL() << "no EngineBugError";
  } catch (const EngineBugError& e) {
    EXPECT_EQ(e.case_id(), 1u);
    EXPECT_EQ(e.composition(), in.composition);
    EXPECT_NE(std::string(e.what()).find("declared case 1 (n = 12"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("infeasible, but it was derived from a solution"), std::string::npos);
  }
}

TEST(Worker, CompletionThatFailsTheVerifierIsAnEngineBug) {
  const ExperimentConfig cfg = config();
  const Shard shard = make_plan(cfg).shards[0];
  const CaseInput in = derive_case(cfg, sample_solution(cfg, 12, 0), 0, 2);
  Scripted corrupt(Outcome::solved, true);
  EXPECT_THROW((void)run_case(cfg, corrupt, shard, 0, 2, in, 0, nullptr, nullptr), EngineBugError);
}

TEST(Worker, GaveUpIsAFalseNegativeAndKeepsTheComposition) {
  const ExperimentConfig cfg = config();
  const Shard shard = make_plan(cfg).shards[0];
  const CaseInput in = derive_case(cfg, sample_solution(cfg, 12, 1), 1, 0);
  Scripted quitter(Outcome::gave_up);
  FailureRecord failure;
  const CaseRow row = run_case(cfg, quitter, shard, 1, 0, in, 3, nullptr, &failure);
  EXPECT_EQ(row.case_id, 3u);
  EXPECT_EQ(row.false_negative, 1);
  EXPECT_EQ(row.outcome, static_cast<std::int8_t>(Outcome::gave_up));
  EXPECT_EQ(stop_reason_name(row.limit), "max_nodes");
  EXPECT_EQ(row.rank, 3);
  EXPECT_EQ(failure.case_id, 3u);
  EXPECT_EQ(failure.q, in.composition.q);
}

TEST(Worker, ShardRowsAreSolvedVerifiedAndDeterministic) {
  const ExperimentConfig cfg = config();
  const Shard shard = make_plan(cfg).shards[0];
  const Plan plan = make_plan(cfg);
  const ShardRun a = run_shard(cfg, plan, shard, 0, nullptr, {});
  const ShardRun b = run_shard(cfg, plan, shard, 1, nullptr, {});
  ASSERT_TRUE(a.complete);
  ASSERT_EQ(a.data.rows.size(), 6u);
  for (std::size_t i = 0; i < a.data.rows.size(); ++i) {
    EXPECT_EQ(a.data.rows[i].case_id, i);
    EXPECT_EQ(a.data.rows[i].outcome, 0);
    EXPECT_EQ(a.data.rows[i].seed, b.data.rows[i].seed);
    EXPECT_EQ(a.data.rows[i].k, b.data.rows[i].k);
    EXPECT_EQ(a.data.rows[i].nodes, b.data.rows[i].nodes);
  }
}

// A shard continued after any number of finished cases (a partial file) gives the rows of an
// uninterrupted run: the kept rows as they were, then the same cases from the same seeds.
TEST(Worker, ShardContinuedAfterFinishedCasesGivesTheSameRows) {
  const ExperimentConfig cfg = config();
  const Plan plan = make_plan(cfg);
  const Shard& shard = plan.shards[0];  // 2 solutions x 3 compositions
  const ShardRun full = run_shard(cfg, plan, shard, 0, nullptr, {});
  for (std::size_t kept = 1; kept < full.data.rows.size(); ++kept) {
    ShardData done{shard.id, {full.data.rows.begin(), full.data.rows.begin() + static_cast<std::ptrdiff_t>(kept)}, {}};
    done.rows[0].rank = 7;  // kept rows are not run again
    const ShardRun rest = run_shard(cfg, plan, shard, 1, nullptr, {}, done);
    ASSERT_TRUE(rest.complete);
    ASSERT_EQ(rest.data.rows.size(), full.data.rows.size()) << kept;
    EXPECT_EQ(rest.data.rows[0].rank, 7);
    for (std::size_t i = 0; i < full.data.rows.size(); ++i) {
      EXPECT_EQ(rest.data.rows[i].case_id, full.data.rows[i].case_id) << kept << " " << i;
      EXPECT_EQ(rest.data.rows[i].seed, full.data.rows[i].seed) << kept << " " << i;
      EXPECT_EQ(rest.data.rows[i].k, full.data.rows[i].k) << kept << " " << i;
      EXPECT_EQ(rest.data.rows[i].nodes, full.data.rows[i].nodes) << kept << " " << i;
      EXPECT_EQ(rest.data.rows[i].rank, i < kept ? (i == 0 ? 7 : 0) : 1) << kept << " " << i;
    }
  }
  ShardData wrong{shard.id, {full.data.rows[1]}, {}};  // case 1 where case 0 belongs
  EXPECT_THROW(run_shard(cfg, plan, shard, 0, nullptr, {}, wrong), std::invalid_argument);
}

// A shard that holds part of one solution's compositions (large n: 68 cases of n = 2*10^6 fit
// shard_seconds) gives the
// rows those cases give one by one, its last case made in the solution's own memory; resumed
// after its first case, the same rows.
TEST(Worker, SplitShardGivesTheRowsOfItsCases) {
  const ExperimentConfig cfg = parse_config(nlohmann::json::parse(R"({"name": "t", "seed": 3, "engine": "auto",
      "sizes": [{"n": 2000000, "solutions": 1, "compositions_per_solution": 70}]})"),
                                            "t.json");
  const Plan plan = make_plan(cfg);
  ASSERT_EQ(plan.shards.size(), 2u);
  const Shard& shard = plan.shards[1];  // compositions 68, 69
  ASSERT_EQ(shard.first_composition, 68u);
  ASSERT_EQ(shard.case_count(), 2u);
  const ShardRun run = run_shard(cfg, plan, shard, 0, nullptr, {});
  ASSERT_TRUE(run.complete);
  ASSERT_EQ(run.data.rows.size(), 2u);
  const Composition solution = sample_solution(cfg, 2000000, 0);
  const auto engine = make_engine("auto");
  for (std::uint64_t c = 68; c < 70; ++c) {
    const CaseRow& row = run.data.rows[c - 68];
    EXPECT_EQ(row.case_id, c);
    EXPECT_EQ(row.composition_id, c);
    EXPECT_EQ(row.outcome, 0);
    const CaseRow one = run_case(cfg, *engine, shard, 0, c, derive_case(cfg, solution, 0, c), 0, nullptr, nullptr);
    EXPECT_EQ(one.case_id, row.case_id);
    EXPECT_EQ(one.seed, row.seed);
    EXPECT_EQ(one.k, row.k);
    EXPECT_EQ(one.nodes, row.nodes);
  }
  ShardData done{shard.id, {run.data.rows[0]}, {}};
  const ShardRun rest = run_shard(cfg, plan, shard, 1, nullptr, {}, done);
  ASSERT_EQ(rest.data.rows.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) EXPECT_EQ(rest.data.rows[i].nodes, run.data.rows[i].nodes);
}

}  // namespace
}  // namespace nqc
