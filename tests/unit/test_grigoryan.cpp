#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "core/engines/grigoryan.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// Worked values of ../shared/paper-facts.md, "Base levels".
TEST(GrigoryanLevels, WorkedValuesOfThePaper) {
  struct Row {
    Index n, level2, level3;
  };
  for (const Row& r : {Row{100, 34, 55}, Row{1000, 804, 900}, Row{10000, 9538, 9762}, Row{100000, 99212, 99609},
                       Row{1000000, 998821, 999453}, Row{100000000, 99997805, 99998958}}) {
    EXPECT_EQ(grigoryan_level2(r.n), r.level2) << "n = " << r.n;
    EXPECT_EQ(grigoryan_level3(r.n), r.level3) << "n = " << r.n;
  }
  // The n = 10^6 reduced matrix of the final stage is 547 x 547 (paper-facts.md).
  EXPECT_EQ(1000000 - grigoryan_level3(1000000), 547);
}

TEST(GrigoryanLevels, ClippedToTheBoard) {
  for (Index n = 1; n <= 200; ++n) {
    EXPECT_GE(grigoryan_level2(n), 0);
    EXPECT_LE(grigoryan_level2(n), n);
    EXPECT_GE(grigoryan_level3(n), 0);
    EXPECT_LE(grigoryan_level3(n), n);
  }
}

TEST(GrigoryanParamsDefaults, AreThePapers) {
  const GrigoryanParams p;
  EXPECT_EQ(p.backtracks_per_attempt, 1000u);
  EXPECT_EQ(p.restarts, 3u);
  EXPECT_EQ(p.block3_retries, 5u);
  EXPECT_EQ(p.block5_backtracks, 100u);
  EXPECT_EQ(p.block5_backtracks_small, 1000u);
  EXPECT_EQ(p.repeat_bound, 5u);
  EXPECT_EQ(p.repeat_bound_small, 25u);
  EXPECT_EQ(p.small_n, 50);
  EXPECT_EQ(p.medium_n, 100);
  EXPECT_FALSE(p.block3_stops_at_level2);
}

void expect_solves(const Composition& c, const Result& r) {
  ASSERT_EQ(r.outcome, Outcome::solved);
  EXPECT_TRUE(is_solution(r.solution));
  EXPECT_TRUE(extends(r.solution, c));
  EXPECT_EQ(r.counters.placed_random + r.counters.placed_search, static_cast<std::uint64_t>(c.n() - c.k()));
  EXPECT_GE(r.counters.nodes, r.counters.placed_random + r.counters.placed_search);
}

// Compositions derived from seeded random solutions as in the experiments (000_*'s design):
// each has a completion, so `infeasible` would be a bug and gave_up is a false negative.
void run_derived(const GrigoryanParams& params, int per_n, int& cases, int& gave_up) {
  const std::uint64_t seed = 1912;
  for (const Index n : {8, 10, 20, 49, 50, 99, 100, 1000}) {
    for (int i = 0; i < per_n; ++i) {
      const auto solution_id = static_cast<std::uint64_t>(i / 10);
      Rng srng(derive_seed(seed, static_cast<std::uint64_t>(n), solution_id, kSolutionStream));
      const Composition solution = random_solution(n, srng);
      const std::uint64_t case_seed = derive_seed(seed, static_cast<std::uint64_t>(n), solution_id, static_cast<std::uint64_t>(i));
      Rng crng(case_seed, 0);
      const Composition c = derive_composition(solution, draw_k(n, KRange{}, crng), crng);
      Rng erng(case_seed, 1);
      const Result r = complete_grigoryan(c, erng, Limits{}, params);
      ++cases;
      ASSERT_NE(r.outcome, Outcome::infeasible) << "n = " << n << " i = " << i;
      if (r.outcome == Outcome::gave_up) {
        EXPECT_EQ(r.limit, "grigoryan_limits");
        ++gave_up;
        continue;
      }
      expect_solves(c, r);
    }
  }
}

// Measured false-negative rates with the defaults (10^4 derived cases per n): 0 at n = 8, 10,
// 20, 200, 1000; 1-3 per 10^4 at n = 30, 49, 50, 99, 100. Expected count here: < 0.1.
TEST(Grigoryan, DerivedCompositionsAreCompleted) {
  int cases = 0, gave_up = 0;
  run_derived(GrigoryanParams{}, 40, cases, gave_up);
  EXPECT_EQ(cases, 320);
  EXPECT_LE(gave_up, 2) << "false negatives out of " << cases;
}

// The author's later code: block 3 stops at level2.
TEST(Grigoryan, DerivedCompositionsWithBlock3StoppingAtLevel2) {
  GrigoryanParams p;
  p.block3_stops_at_level2 = true;
  int cases = 0, gave_up = 0;
  run_derived(p, 15, cases, gave_up);
  EXPECT_LE(gave_up, 2) << "false negatives out of " << cases;
}

TEST(Grigoryan, SameSeedSameResult) {
  for (const Index n : {20, 100, 1000}) {
    Rng srng(7);
    const Composition solution = random_solution(n, srng);
    for (int i = 0; i < 10; ++i) {
      const Composition c = derive_composition(solution, draw_k(n, KRange{}, srng), srng);
      Rng a(static_cast<std::uint64_t>(i), 1), b(static_cast<std::uint64_t>(i), 1);
      const Result ra = complete_grigoryan(c, a, Limits{});
      const Result rb = complete_grigoryan(c, b, Limits{});
      EXPECT_EQ(ra.outcome, rb.outcome);
      EXPECT_EQ(ra.solution, rb.solution);
      EXPECT_EQ(ra.limit, rb.limit);
      EXPECT_EQ(ra.counters.backtracks, rb.counters.backtracks);
      EXPECT_EQ(ra.counters.nodes, rb.counters.nodes);
      EXPECT_EQ(ra.counters.placed_random, rb.counters.placed_random);
      EXPECT_EQ(ra.counters.placed_search, rb.counters.placed_search);
      EXPECT_EQ(ra.counters.restarts, rb.counters.restarts);
      EXPECT_EQ(a(), b());  // the same number of draws
    }
  }
}

TEST(Grigoryan, EmptyBoardsAreSolved) {
  for (Index n = 7; n <= 30; ++n) {
    Rng rng(static_cast<std::uint64_t>(n));
    expect_solves(Composition(n), complete_grigoryan(Composition(n), rng, Limits{}));
  }
  Rng rng(1000);
  const Result r = complete_grigoryan(Composition(1000), rng, Limits{});
  expect_solves(Composition(1000), r);
  // n = 1000 starts at block 1 and runs the random phases up to level3 = 900.
  EXPECT_GE(r.counters.placed_random, 900u);
}

// n < 7 is outside the paper's study; the final stage alone runs there.
TEST(Grigoryan, SmallBoards) {
  for (const Index n : {1, 4, 5, 6}) {
    Rng rng(3);
    expect_solves(Composition(n), complete_grigoryan(Composition(n), rng, Limits{}));
  }
  for (const Index n : {2, 3}) {
    Rng rng(3);
    const Result r = complete_grigoryan(Composition(n), rng, Limits{});
    EXPECT_EQ(r.outcome, Outcome::gave_up) << "n = " << n;
    EXPECT_EQ(r.limit, "grigoryan_limits");
    EXPECT_EQ(r.counters.restarts, 3u);
  }
}

TEST(Grigoryan, NoCompletionGivesUpNeverInfeasible) {
  // Queens in rows 1 and 3 (columns 1 and 4) leave row 2 of the 4 x 4 board without a free cell:
  // the run starts at block 4 and gives up at once.
  const Composition c(std::vector<Index>{1, 0, 4, 0});
  Rng rng(5);
  const Result r = complete_grigoryan(c, rng, Limits{});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, "grigoryan_limits");
}

TEST(Grigoryan, FullCompositionIsReturned) {
  const Composition c(std::vector<Index>{2, 4, 1, 3});
  Rng rng(1);
  const Result r = complete_grigoryan(c, rng, Limits{});
  ASSERT_EQ(r.outcome, Outcome::solved);
  EXPECT_EQ(r.solution, c);
  EXPECT_EQ(r.counters.nodes, 0u);
}

TEST(Grigoryan, InconsistentCompositionThrows) {
  const Composition c(std::vector<Index>{1, 2, 0, 0, 0});
  Rng rng(1);
  EXPECT_THROW(complete_grigoryan(c, rng, Limits{}), std::invalid_argument);
}

TEST(Grigoryan, MaxNodesGivesUp) {
  for (const Index n : {20, 1000}) {
    Rng rng(2);
    const Result r = complete_grigoryan(Composition(n), rng, Limits{10, 0.0, nullptr});
    EXPECT_EQ(r.outcome, Outcome::gave_up);
    EXPECT_EQ(r.limit, "max_nodes");
    EXPECT_EQ(r.counters.nodes, 10u);
  }
}

TEST(Grigoryan, StopFlagGivesUp) {
  const std::atomic<bool> stop{true};
  Rng rng(2);
  const Result r = complete_grigoryan(Composition(100000), rng, Limits{0, 0.0, &stop});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, "stop");
}

TEST(Grigoryan, LargeBoard) {
  Rng rng(6);
  const Index n = 200000;
  const Result r = complete_grigoryan(Composition(n), rng, Limits{});
  expect_solves(Composition(n), r);
  EXPECT_EQ(r.counters.placed_search, static_cast<std::uint64_t>(n - grigoryan_level3(n)));
}

}  // namespace
}  // namespace nqc
