#include <gtest/gtest.h>

#include "brute_force.hpp"

#include <algorithm>
#include <numeric>

#include "core/construction.hpp"
#include "core/engine.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/exact.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// OEIS A000170 (../shared/data/oeis-A000170.txt), n = 1..14.
const std::uint64_t kQ[] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};

// Engines that may answer `infeasible` (complete searches); the others answer gave_up.
bool is_complete(const std::string& engine) { return engine_info(engine).complete; }

// Whether the engine takes a residual of f free rows.
bool takes(const std::string& engine, Index f) {
  const Index max = engine_info(engine).max_free_rows;
  return max == 0 || f <= max;
}

using nqc::testing::brute_force_completions;
using nqc::testing::random_consistent;

TEST(Count, EmptyBoardsMatchOeis) {
  for (Index n = 1; n <= 14; ++n) {
    const CountResult r = count_completions(Composition(n), Limits{});
    EXPECT_EQ(r.completions, kQ[n - 1]) << "n = " << n;
    EXPECT_FALSE(r.gave_up);
  }
}

TEST(Count, CompositionsMatchBruteForce) {
  Rng rng(2024);
  for (Index n = 4; n <= 8; ++n)
    for (int t = 0; t < 25; ++t) {
      const Composition c = random_consistent(n, static_cast<Index>(rng.below(static_cast<std::uint64_t>(n))), rng);
      EXPECT_EQ(count_completions(c, Limits{}).completions, brute_force_completions(c)) << "n = " << n << " t = " << t;
    }
}

TEST(Count, MaskCounterAgreesWithReducedBoardSearch) {
  Rng rng(31);
  for (Index n = 4; n <= 11; ++n)
    for (int t = 0; t < 10; ++t) {
      const Composition c = random_consistent(n, static_cast<Index>(rng.below(static_cast<std::uint64_t>(n / 2 + 1))), rng);
      EXPECT_EQ(count_completions(c, Limits{}).completions, count_completions_reduced(c, Limits{}).completions)
          << "n = " << n << " t = " << t;
    }
}

TEST(Count, BoardsBeyond64UseTheReducedSearch) {
  // A solution of n = 70 with 6 rows emptied: the count is at least 1 (the solution) and
  // equals the brute-force count over the 6! placements of the freed columns.
  Rng rng(8);
  const Composition s = *construct_solution(70);
  Composition c = s;
  std::vector<Index> freed;
  for (Index r : {3, 17, 30, 44, 58, 69}) {
    freed.push_back(c.q[static_cast<std::size_t>(r)]);
    c.q[static_cast<std::size_t>(r)] = 0;
  }
  std::sort(freed.begin(), freed.end());
  std::uint64_t brute = 0;
  do {
    Composition t = c;
    std::size_t i = 0;
    for (Index r : {3, 17, 30, 44, 58, 69}) t.q[static_cast<std::size_t>(r)] = freed[i++];
    brute += verify(t).ok() ? 1 : 0;
  } while (std::next_permutation(freed.begin(), freed.end()));
  const CountResult r = count_completions(c, Limits{});
  EXPECT_GE(r.completions, 1u);
  EXPECT_EQ(r.completions, brute);
}

TEST(Count, NodeLimitGivesLowerBound) {
  const CountResult r = count_completions(Composition(10), Limits{100, 0, nullptr});
  EXPECT_TRUE(r.gave_up);
  EXPECT_EQ(r.limit, "max_nodes");
  EXPECT_EQ(r.nodes, 100u);
  EXPECT_LT(r.completions, 724u);
}

TEST(Engines, VerdictsAgreeWithBruteForceOnRandomCompositions) {
  Rng rng(99);
  int infeasible = 0, solved = 0;
  for (Index n = 4; n <= 8; ++n)
    for (int t = 0; t < 40; ++t) {
      const Composition c = random_consistent(n, static_cast<Index>(1 + rng.below(static_cast<std::uint64_t>(n - 1))), rng);
      const bool completable = brute_force_completions(c) > 0;
      for (const auto& name : engine_names()) {
        Rng erng(static_cast<std::uint64_t>(t), 1);
        const Result r = make_engine(name)->complete(c, erng, Limits{});
        const Outcome no_completion = is_complete(name) ? Outcome::infeasible : Outcome::gave_up;
        ASSERT_EQ(r.outcome, completable ? Outcome::solved : no_completion) << name << " n = " << n << " t = " << t;
        if (completable) {
          ASSERT_TRUE(is_solution(r.solution));
          ASSERT_TRUE(extends(r.solution, c));
        }
      }
      (completable ? solved : infeasible) += 1;
    }
  // The sample must exercise both verdicts.
  EXPECT_GT(infeasible, 20);
  EXPECT_GT(solved, 20);
}

TEST(Engines, EdgeCases) {
  for (const auto& name : engine_names()) {
    const auto engine = make_engine(name);
    Rng rng(1);
    EXPECT_EQ(engine->complete(Composition(1), rng, {}).outcome, Outcome::solved) << name;
    const Outcome no_completion = is_complete(name) ? Outcome::infeasible : Outcome::gave_up;
    EXPECT_EQ(engine->complete(Composition(2), rng, {}).outcome, no_completion) << name;
    EXPECT_EQ(engine->complete(Composition(3), rng, {}).outcome, no_completion) << name;
    // Full composition (k = n): solved as it stands, no search.
    const Composition full({2, 4, 1, 3});
    const Result r = engine->complete(full, rng, {});
    EXPECT_EQ(r.outcome, Outcome::solved) << name;
    EXPECT_EQ(r.solution, full) << name;
    EXPECT_EQ(r.counters.nodes, 0u) << name;
    // n = 4 has the solutions 2413 and 3142: a queen in row 1, column 1 has no completion.
    EXPECT_EQ(engine->complete(Composition({1, 0, 0, 0}), rng, {}).outcome, no_completion) << name;
    // Empty boards are solved for n >= 4 (exact alone thrashes on large empty boards even
    // with restarts; auto reaches them through its random fill).
    for (Index n : {4, 5, 6, 7, 30, 200, name == "exact" ? 500 : 20000}) {
      if (!takes(name, n) || (name == "sat" && n > 30)) continue;  // sat: 20 s at n = 200
      const Result e = engine->complete(Composition(n), rng, {});
      EXPECT_EQ(e.outcome, Outcome::solved) << name << " n = " << n;
      EXPECT_TRUE(is_solution(e.solution)) << name << " n = " << n;
    }
  }
}

TEST(Engines, LimitsGiveGaveUpWithTheLimitNamed) {
  // 25 free rows cannot be filled in 2 placements.
  Rng rng(5);
  Composition c(28);
  c.q[0] = 1;
  c.q[1] = 3;
  c.q[2] = 5;
  const Result r = complete_exact(c, rng, Limits{2, 0, nullptr});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, "max_nodes");
  EXPECT_EQ(r.counters.nodes, 2u);
  const std::atomic<bool> stop{true};
  const Result s = complete_exact(Composition(2000), rng, Limits{0, 0, &stop});
  EXPECT_EQ(s.outcome, Outcome::gave_up);
  EXPECT_EQ(s.limit, "stop");
}

TEST(Engines, SameSeedSameResult) {
  Composition c(500);
  c.q[10] = 7;
  c.q[300] = 250;
  for (const auto& name : engine_names()) {
    if (!takes(name, 498) || name == "sat") continue;  // sat: tests/unit/test_complete_search.cpp
    Rng a(11), b(11);
    const Result ra = make_engine(name)->complete(c, a, {});
    const Result rb = make_engine(name)->complete(c, b, {});
    EXPECT_EQ(ra.solution, rb.solution) << name;
    EXPECT_EQ(ra.counters.nodes, rb.counters.nodes) << name;
    EXPECT_EQ(ra.counters.backtracks, rb.counters.backtracks) << name;
  }
}

TEST(Engines, AutoSolvesLargeBoardsAndCountsEveryPlacement) {
  Rng rng(3);
  const Result r = complete_auto(Composition(100000), rng, {});
  ASSERT_EQ(r.outcome, Outcome::solved);
  EXPECT_TRUE(is_solution(r.solution));
  EXPECT_EQ(r.counters.placed_random + r.counters.placed_search, 100000u);
  EXPECT_EQ(auto_residual_rows(1000), 150);
  EXPECT_EQ(auto_residual_rows(1000000), 1500);
}

TEST(Engines, InconsistentInputAndUnknownNamesAreRejected) {
  Rng rng(1);
  try {
    (void)complete_exact(Composition({1, 0, 3, 0}), rng, {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "inconsistent composition: rows 1 and 3: two queens on one diagonal (columns 1 and 3)");
  }
  try {
    (void)make_engine("nosuch");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "unknown engine 'nosuch' (valid engines: auto, bitboard, exact, grigoryan, minconflicts, sat)");
  }
}

}  // namespace
}  // namespace nqc
