#include <gtest/gtest.h>

#include "printers.hpp"

#include "brute_force.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <stdexcept>

#include "core/engines/minconflicts.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// Every result must be solved with a verified completion, or gave_up with a limit name;
// never infeasible (a local search proves nothing, [Minton92]).
void expect_sound(const Result& r, const Composition& c, const std::string& what) {
  ASSERT_NE(r.outcome, Outcome::infeasible) << what;
  if (r.outcome == Outcome::solved) {
    ASSERT_TRUE(is_solution(r.solution)) << what;
    ASSERT_TRUE(extends(r.solution, c)) << what;
    EXPECT_EQ(r.counters.placed_search, static_cast<std::uint64_t>(c.n() - c.k())) << what;
    EXPECT_EQ(r.limit, StopReason::none) << what;
  } else {
    EXPECT_NE(r.limit, StopReason::none) << what;
    EXPECT_TRUE(r.solution.q.empty()) << what;
  }
  EXPECT_EQ(r.counters.backtracks, 0u) << what;
  EXPECT_EQ(r.counters.placed_random, 0u) << what;
}

using nqc::testing::brute_force_completions;
using nqc::testing::random_consistent;

TEST(MinConflicts, SolvesDerivedCompositions) {
  struct Size {
    Index n;
    int solutions, per_solution;
  };
  // 332 compositions, k uniform on 1..n-1 as in the paper's experiments.
  const Size sizes[] = {{4, 4, 10},  {5, 4, 10},   {8, 4, 10},    {10, 4, 10},  {20, 4, 10},
                        {50, 4, 10}, {100, 4, 10}, {1000, 4, 10}, {10000, 2, 6}};
  int cases = 0, solved = 0;
  for (const Size& s : sizes)
    for (int i = 0; i < s.solutions; ++i) {
      Rng srng(derive_seed(11, static_cast<std::uint64_t>(s.n), static_cast<std::uint64_t>(i), kSolutionStream));
      const Composition solution = random_solution(s.n, srng);
      for (int j = 0; j < s.per_solution; ++j) {
        const std::uint64_t seed = derive_seed(11, static_cast<std::uint64_t>(s.n), static_cast<std::uint64_t>(i),
                                               static_cast<std::uint64_t>(j));
        Rng crng(seed);
        const Composition c = derive_composition(solution, draw_k(s.n, KRange{}, crng), crng);
        Rng erng(seed, 1);
        const Result r = complete_minconflicts(c, erng, Limits{});
        expect_sound(r, c,
                     "n = " + std::to_string(s.n) + " solution " + std::to_string(i) + " case " + std::to_string(j));
        ++cases;
        if (r.outcome == Outcome::solved) ++solved;
      }
    }
  EXPECT_EQ(cases, 332);
  // Measured: every one of ~9000 derived compositions at n = 4 .. 10^6 was solved with the
  // default parameters; the bound leaves margin for parameter changes.
  EXPECT_GE(solved, cases * 97 / 100) << solved << " of " << cases;
}

TEST(MinConflicts, RandomInitialAssignmentAlsoSolves) {
  MinConflictsParams p;
  p.init = MinConflictsInit::random;
  for (const Index n : {8, 100, 1000}) {
    Rng srng(derive_seed(12, static_cast<std::uint64_t>(n), 0, kSolutionStream));
    const Composition solution = random_solution(n, srng);
    for (int j = 0; j < 10; ++j) {
      Rng crng(derive_seed(12, static_cast<std::uint64_t>(n), 0, static_cast<std::uint64_t>(j)));
      const Composition c = derive_composition(solution, draw_k(n, KRange{}, crng), crng);
      const Result r = complete_minconflicts(c, crng, Limits{}, p);
      expect_sound(r, c, "n = " + std::to_string(n));
      EXPECT_EQ(r.outcome, Outcome::solved) << "n = " << n << " case " << j;
    }
  }
}

TEST(MinConflicts, NoCompletionGivesUpNeverInfeasible) {
  const Composition cases[] = {Composition(std::vector<Index>{1, 0, 0, 0}), Composition(2), Composition(3)};
  for (const Composition& c : cases) {
    Rng rng(5);
    const Result r = complete_minconflicts(c, rng, Limits{});
    EXPECT_EQ(r.outcome, Outcome::gave_up) << "n = " << c.n();
    EXPECT_EQ(r.limit, StopReason::minconflicts_limits);
    EXPECT_EQ(r.counters.restarts, MinConflictsParams{}.max_restarts);
    EXPECT_TRUE(r.solution.q.empty());
  }
}

TEST(MinConflicts, SingleAttackedFreeRowGivesUpAtOnce) {
  // Rows 1, 2, 4 hold columns 2, 4, 1; row 3's one free column, 3, is attacked by row 2.
  const Composition c(std::vector<Index>{2, 4, 0, 1});
  Rng rng(1);
  const Result r = complete_minconflicts(c, rng, Limits{});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, StopReason::minconflicts_limits);
  EXPECT_EQ(r.counters.restarts, 0u);
  EXPECT_EQ(r.counters.nodes, 1u);
}

TEST(MinConflicts, AgreesWithBruteForceWhereItAnswers) {
  Rng rng(77);
  int without = 0, with = 0, solved_with = 0;
  for (Index n = 4; n <= 7; ++n)
    for (int t = 0; t < 25; ++t) {
      const Composition c =
          random_consistent(n, static_cast<Index>(1 + rng.below(static_cast<std::uint64_t>(n - 1))), rng);
      const bool completable = brute_force_completions(c) > 0;
      Rng erng(static_cast<std::uint64_t>(t), 1);
      const Result r = complete_minconflicts(c, erng, Limits{});
      expect_sound(r, c, "n = " + std::to_string(n) + " t = " + std::to_string(t));
      if (!completable) {
        ++without;
        EXPECT_EQ(r.outcome, Outcome::gave_up);
        EXPECT_EQ(r.limit, StopReason::minconflicts_limits);
      } else {
        ++with;
        if (r.outcome == Outcome::solved) ++solved_with;
      }
    }
  EXPECT_GT(without, 10);        // the sample exercises the no-completion path
  EXPECT_EQ(solved_with, with);  // tiny residuals: restarts cover them
}

TEST(MinConflicts, RespectsExcludedDiagonals) {
  int cases = 0, solved = 0;
  for (const Index n : {8, 50, 1000}) {
    Rng srng(derive_seed(14, static_cast<std::uint64_t>(n), 0, kSolutionStream));
    const Composition solution = random_solution(n, srng);
    std::vector<std::uint8_t> used1(2 * static_cast<std::size_t>(n), 0), used2(used1);
    for (Index r = 0; r < n; ++r) {
      const Index c = solution.q[static_cast<std::size_t>(r)] - 1;
      used1[static_cast<std::size_t>(r - c + n - 1)] = 1;
      used2[static_cast<std::size_t>(r + c)] = 1;
    }
    for (int j = 0; j < 10; ++j) {
      Rng crng(derive_seed(14, static_cast<std::uint64_t>(n), 0, static_cast<std::uint64_t>(j)));
      Composition c = derive_composition(solution, draw_k(n, KRange{}, crng), crng);
      // Exclude about a third of the diagonals the solution leaves empty, with a duplicate
      // and an out-of-range index: the solution stays a completion.
      for (Index a = 0; a <= 2 * n - 2; ++a) {
        if (!used1[static_cast<std::size_t>(a)] && crng.below(3) == 0) c.excluded_difference.push_back(a);
        if (!used2[static_cast<std::size_t>(a)] && crng.below(3) == 0) c.excluded_sum.push_back(a);
      }
      if (!c.excluded_sum.empty()) c.excluded_sum.push_back(c.excluded_sum.front());
      c.excluded_difference.push_back(2 * n + 5);
      ASSERT_TRUE(extends(solution, c) && verify(Composition(solution.q)).ok());
      Rng erng(static_cast<std::uint64_t>(j), 1);
      const Result r = complete_minconflicts(c, erng, Limits{});
      expect_sound(r, c, "n = " + std::to_string(n) + " case " + std::to_string(j));  // verify() checks exclusions
      ++cases;
      if (r.outcome == Outcome::solved) ++solved;
    }
  }
  EXPECT_GE(solved, cases * 9 / 10) << solved << " of " << cases;
  // The one free cell of row 4 (column 3) on an excluded sum diagonal (r + c = 3 + 2).
  Composition c(std::vector<Index>{2, 4, 1, 0});
  Rng rng(2);
  EXPECT_EQ(complete_minconflicts(c, rng, Limits{}).outcome, Outcome::solved);
  c.excluded_sum = {5};
  const Result r = complete_minconflicts(c, rng, Limits{});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, StopReason::minconflicts_limits);
}

TEST(MinConflicts, TrivialBoards) {
  Rng rng(3);
  const Result one = complete_minconflicts(Composition(1), rng, Limits{});
  ASSERT_EQ(one.outcome, Outcome::solved);
  EXPECT_EQ(one.solution, Composition(std::vector<Index>{1}));
  const Composition full(std::vector<Index>{2, 4, 1, 3});
  const Result r = complete_minconflicts(full, rng, Limits{});
  ASSERT_EQ(r.outcome, Outcome::solved);
  EXPECT_EQ(r.solution, full);
  EXPECT_EQ(r.counters.nodes, 0u);
}

TEST(MinConflicts, InconsistentCompositionThrows) {
  Rng rng(3);
  EXPECT_THROW(complete_minconflicts(Composition(std::vector<Index>{1, 2, 0, 0}), rng, Limits{}),
               std::invalid_argument);
}

TEST(MinConflicts, SameSeedSameResult) {
  Rng srng(derive_seed(13, 1000, 0, kSolutionStream));
  const Composition solution = random_solution(1000, srng);
  for (int j = 0; j < 5; ++j) {
    Rng crng(derive_seed(13, 1000, 0, static_cast<std::uint64_t>(j)));
    const Composition c = derive_composition(solution, draw_k(1000, KRange{}, crng), crng);
    Rng a(99, static_cast<std::uint64_t>(j)), b(99, static_cast<std::uint64_t>(j));
    const Result ra = complete_minconflicts(c, a, Limits{});
    const Result rb = complete_minconflicts(c, b, Limits{});
    EXPECT_EQ(ra.outcome, rb.outcome);
    EXPECT_EQ(ra.solution, rb.solution);
    EXPECT_EQ(ra.limit, rb.limit);
    EXPECT_EQ(ra.counters.nodes, rb.counters.nodes);
    EXPECT_EQ(ra.counters.restarts, rb.counters.restarts);
  }
  // Also when giving up.
  Rng a(4), b(4);
  const Result ra = complete_minconflicts(Composition(3), a, Limits{});
  const Result rb = complete_minconflicts(Composition(3), b, Limits{});
  EXPECT_EQ(ra.counters.nodes, rb.counters.nodes);
}

TEST(MinConflicts, NodeLimitGivesUp) {
  Rng rng(8);
  const Result r = complete_minconflicts(Composition(10000), rng, Limits{100, 0.0, nullptr});
  EXPECT_EQ(r.outcome, Outcome::gave_up);
  EXPECT_EQ(r.limit, StopReason::max_nodes);
  EXPECT_EQ(r.counters.nodes, 100u);
  // In the repair phase too: n = 3 places 3 queens per try, then repairs.
  Rng rng3(8);
  const Result r3 = complete_minconflicts(Composition(3), rng3, Limits{500, 0.0, nullptr});
  EXPECT_EQ(r3.outcome, Outcome::gave_up);
  EXPECT_EQ(r3.limit, StopReason::max_nodes);
  EXPECT_EQ(r3.counters.nodes, 500u);
}

TEST(MinConflicts, TimeLimitAndStopGiveUp) {
  MinConflictsParams endless;
  endless.max_restarts = 1u << 30;  // n = 3 would run for hours
  Rng rng(9);
  const Result t = complete_minconflicts(Composition(3), rng, Limits{0, 0.02, nullptr}, endless);
  EXPECT_EQ(t.outcome, Outcome::gave_up);
  EXPECT_EQ(t.limit, StopReason::time_limit);
  const std::atomic<bool> stop{true};
  const Result s = complete_minconflicts(Composition(3), rng, Limits{0, 0.0, &stop}, endless);
  EXPECT_EQ(s.outcome, Outcome::gave_up);
  EXPECT_EQ(s.limit, StopReason::stop);
}

}  // namespace
}  // namespace nqc
