#include <gtest/gtest.h>

#include "printers.hpp"

#include "brute_force.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>

#include "core/construction.hpp"
#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/exact.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// [OEIS-A000170] (tests/data/oeis-A000170.txt), n = 1..14.
const std::uint64_t kQ[] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};

// Q(n) read from tests/data/oeis-A000170.txt ([OEIS-A000170]), n = 1..27.
std::map<Index, std::uint64_t> oeis_q() {
  std::ifstream in(NQC_TEST_DATA_DIR "/oeis-A000170.txt");
  std::map<Index, std::uint64_t> q;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    Index n = 0;
    std::uint64_t value = 0;
    if (fields >> n >> value) q[n] = value;
  }
  return q;
}

// Engines that may answer `infeasible` (complete searches); the others answer gave_up.
bool is_complete(const std::string& engine) { return engine_info(engine).complete; }

// Whether the engine takes a residual of f free rows.
bool takes(const std::string& engine, Index f) {
  const Index max = engine_info(engine).max_free_rows;
  return max == 0 || f <= max;
}

using nqc::testing::brute_force_completions;
using nqc::testing::random_consistent;

// Q(n) by the plain row-by-row bit-parallel search, no symmetry: a reference for the
// symmetric counter that shares nothing with it but the idea.
std::uint64_t plain_queens(Index n, Index row = 0, std::uint64_t cols = 0, std::uint64_t left = 0,
                           std::uint64_t right = 0) {
  if (row == n) return 1;
  std::uint64_t total = 0;
  for (std::uint64_t free = ~(cols | left | right) & ((std::uint64_t{1} << n) - 1); free != 0; free &= free - 1) {
    const std::uint64_t bit = free & (0 - free);
    total += plain_queens(n, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
  }
  return total;
}

TEST(Count, EmptyBoardsMatchOeis) {
  const auto q = oeis_q();
  ASSERT_EQ(q.size(), 27u);
  for (Index n = 1; n <= 15; ++n) {
    const CountResult r = count_completions(Composition(n), Limits{});
    EXPECT_EQ(r.completions, q.at(n)) << "n = " << n;
    EXPECT_FALSE(r.gave_up);
    if (n <= 14) {
      EXPECT_EQ(r.completions, kQ[n - 1]) << "n = " << n;
    }
  }
}

TEST(Count, EmptyBoard16MatchesOeis) {
  const CountResult r = count_completions(Composition(16), Limits{});
  EXPECT_EQ(r.completions, oeis_q().at(16));
  EXPECT_EQ(r.completions, 14772512u);
  EXPECT_FALSE(r.gave_up);
}

TEST(Count, SymmetricCounterAgreesWithThePlainSearch) {
  for (Index n = 1; n <= 12; ++n)
    EXPECT_EQ(count_completions(Composition(n), Limits{}).completions, plain_queens(n)) << "n = " << n;
}

// What `mpirun -np K nqc count N` does (runner/count.cpp), with K counters in one process:
// each lists the same prefixes; prefix i goes to counter `owner(i)`; the listing counts once.
template <class Owner>
CountResult count_split(Index n, int depth, int ranks, Owner owner) {
  std::vector<std::unique_ptr<QueensCounter>> counters;
  std::vector<QueensPrefixes> lists;
  for (int k = 0; k < ranks; ++k) {
    counters.push_back(std::make_unique<QueensCounter>(n, Limits{}));
    lists.push_back(counters.back()->list(depth));
  }
  for (int k = 1; k < ranks; ++k) {
    const auto& a = lists[0].prefixes;
    const auto& b = lists[static_cast<std::size_t>(k)].prefixes;
    EXPECT_TRUE(a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                                   [](const QueensPrefix& x, const QueensPrefix& y) {
                                                     return x.left == y.left && x.down == y.down &&
                                                            x.right == y.right && x.corner == y.corner &&
                                                            x.bound1 == y.bound1 && x.row == y.row && x.cols == y.cols;
                                                   }))
        << "rank " << k << " listed other prefixes";
  }
  for (std::size_t i = 0; i < lists[0].prefixes.size(); ++i)
    counters[static_cast<std::size_t>(owner(i))]->count(lists[0].prefixes[i]);
  CountResult out;
  for (int k = 0; k < ranks; ++k) {
    const QueensCounter& c = *counters[static_cast<std::size_t>(k)];
    out.completions += c.completions() - (k == 0 ? 0 : lists[static_cast<std::size_t>(k)].completions);
    out.nodes += c.nodes() - (k == 0 ? 0 : lists[static_cast<std::size_t>(k)].nodes);
  }
  return out;
}

TEST(Count, PrefixSplitsSumToQAtEveryDepth) {
  const auto q = oeis_q();
  for (Index n = 1; n <= 13; ++n) {
    const CountResult whole = count_completions(Composition(n), Limits{});
    for (int depth = 1; depth <= kMaxPrefixRows; ++depth) {
      QueensCounter lister(n, Limits{});
      const QueensPrefixes listed = lister.list(depth);
      for (const QueensPrefix& p : listed.prefixes)  // the corner subproblems start at row 2
        EXPECT_EQ(p.row, std::max(depth, p.corner != 0 ? 2 : 1)) << "n = " << n << " depth = " << depth;
      // One counter in order, 2 ranks alternating, 3 ranks in blocks, and all prefixes on the last rank.
      for (const CountResult& r :
           {count_split(n, depth, 1, [](std::size_t) { return 0; }),
            count_split(n, depth, 2, [](std::size_t i) { return i % 2; }),
            count_split(n, depth, 3,
                        [&](std::size_t i) { return static_cast<int>(3 * i / (listed.prefixes.size() + 1)); }),
            count_split(n, depth, 3, [](std::size_t) { return 2; })}) {
        EXPECT_EQ(r.completions, q.at(n)) << "n = " << n << " depth = " << depth;
        EXPECT_EQ(r.nodes, whole.nodes) << "n = " << n << " depth = " << depth
                                        << ": the node total depends on the split";
      }
    }
  }
  // Deeper prefixes are more and smaller: what keeps many ranks busy.
  QueensCounter a(14, Limits{}), b(14, Limits{});
  EXPECT_LT(a.list(2).prefixes.size() * 5, b.list(3).prefixes.size());
}

TEST(Count, CompositionsMatchBruteForce) {
  Rng rng(2024);
  for (Index n = 4; n <= 8; ++n)
    for (int t = 0; t < 25; ++t) {
      const Composition c = random_consistent(n, static_cast<Index>(rng.below(static_cast<std::uint64_t>(n))), rng);
      EXPECT_EQ(count_completions(c, Limits{}).completions, brute_force_completions(c)) << "n = " << n << " t = " << t;
    }
}

TEST(Count, CompositionsWithExcludedDiagonalsMatchBruteForce) {
  Rng rng(77);
  int with_completions = 0;
  for (Index n = 4; n <= 8; ++n)
    for (int t = 0; t < 30; ++t) {
      Composition c = random_consistent(n, static_cast<Index>(rng.below(static_cast<std::uint64_t>(n / 2 + 1))), rng);
      // Random diagonals of either direction, kept when they miss every queen (CSPLib prob079).
      for (int d = 0; d < 1 + static_cast<int>(rng.below(4)); ++d) {
        const auto a = static_cast<Index>(rng.below(static_cast<std::uint64_t>(2 * n - 1)));
        auto& lines = rng.below(2) == 0 ? c.excluded_difference : c.excluded_sum;
        lines.push_back(a);
        if (!verify(c).ok()) lines.pop_back();
      }
      const std::uint64_t brute = brute_force_completions(c);
      with_completions += brute > 0 ? 1 : 0;
      EXPECT_EQ(count_completions(c, Limits{}).completions, brute) << "n = " << n << " t = " << t;
    }
  EXPECT_GT(with_completions, 20);  // not a test of zeros only
}

TEST(Count, WordSearchAgreesWithReducedBoardSearch) {
  Rng rng(31);
  for (Index n = 4; n <= 11; ++n)
    for (int t = 0; t < 10; ++t) {
      const Composition c =
          random_consistent(n, static_cast<Index>(rng.below(static_cast<std::uint64_t>(n / 2 + 1))), rng);
      if (c.k() == 0) continue;  // the empty board takes the symmetric counter
      EXPECT_EQ(count_completions(c, Limits{}).completions, count_completions_reduced(c, Limits{}).completions)
          << "n = " << n << " t = " << t;
    }
}

TEST(Count, BoardsBeyond64CountOnWords) {
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
  EXPECT_EQ(count_completions_reduced(c, Limits{}).completions, brute);
}

TEST(Count, NodeLimitGivesLowerBound) {
  const CountResult r = count_completions(Composition(10), Limits{100, 0, nullptr});
  EXPECT_TRUE(r.gave_up);
  EXPECT_EQ(r.limit, StopReason::max_nodes);
  EXPECT_EQ(r.nodes, 100u);
  EXPECT_LT(r.completions, 724u);
}

TEST(Count, NodeLimitIsExactAndTheCountGrowsWithIt) {
  const CountResult whole = count_completions(Composition(12), Limits{});
  ASSERT_EQ(whole.completions, 14200u);
  std::uint64_t before = 0;
  // Limits inside the listing, in the checked top rows, and in the unchecked rows below.
  for (const std::uint64_t max : {std::uint64_t{1}, std::uint64_t{5}, std::uint64_t{77}, std::uint64_t{1000},
                                  std::uint64_t{12345}, whole.nodes / 2, whole.nodes / 2 + 1, whole.nodes - 1}) {
    const CountResult r = count_completions(Composition(12), Limits{max, 0, nullptr});
    EXPECT_TRUE(r.gave_up) << max;
    EXPECT_EQ(r.limit, StopReason::max_nodes);
    EXPECT_EQ(r.nodes, max);
    EXPECT_GE(r.completions, before) << max;
    EXPECT_LE(r.completions, 14200u) << max;
    if (max <= whole.nodes / 2) {
      EXPECT_LT(r.completions, 14200u) << max;
    }
    before = r.completions;
  }
  const CountResult exact = count_completions(Composition(12), Limits{whole.nodes, 0, nullptr});
  EXPECT_FALSE(exact.gave_up);
  EXPECT_EQ(exact.completions, 14200u);
  EXPECT_EQ(exact.nodes, whole.nodes);
}

TEST(Count, TimeLimitAndStopFlagEndALongCount) {
  // Q(20) would take minutes.
  const auto t0 = std::chrono::steady_clock::now();
  const CountResult r = count_completions(Composition(20), Limits{0, 0.05, nullptr});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  EXPECT_TRUE(r.gave_up);
  EXPECT_EQ(r.limit, StopReason::time_limit);
  EXPECT_GT(r.nodes, 0u);
  const std::atomic<bool> stop{true};
  const CountResult s = count_completions(Composition(20), Limits{0, 0, &stop});
  EXPECT_TRUE(s.gave_up);
  EXPECT_EQ(s.limit, StopReason::stop);
  EXPECT_EQ(s.completions, 0u);
}

TEST(Count, CounterTakesOnlyWordSizedBoards) {
  EXPECT_THROW((void)QueensCounter(0, Limits{}), std::invalid_argument);
  EXPECT_THROW((void)QueensCounter(65, Limits{}), std::invalid_argument);
  QueensCounter c(64, Limits{1000, 0, nullptr});  // a 64-bit board lists and counts within its limit
  for (const QueensPrefix& p : c.list(3).prefixes) c.count(p);
  EXPECT_TRUE(c.stopped());
  EXPECT_EQ(c.nodes(), 1000u);
}

TEST(Engines, VerdictsAgreeWithBruteForceOnRandomCompositions) {
  Rng rng(99);
  int infeasible = 0, solved = 0;
  for (Index n = 4; n <= 8; ++n)
    for (int t = 0; t < 40; ++t) {
      const Composition c =
          random_consistent(n, static_cast<Index>(1 + rng.below(static_cast<std::uint64_t>(n - 1))), rng);
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
  EXPECT_EQ(r.limit, StopReason::max_nodes);
  EXPECT_EQ(r.counters.nodes, 2u);
  const std::atomic<bool> stop{true};
  const Result s = complete_exact(Composition(2000), rng, Limits{0, 0, &stop});
  EXPECT_EQ(s.outcome, Outcome::gave_up);
  EXPECT_EQ(s.limit, StopReason::stop);
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
    EXPECT_STREQ(e.what(),
                 "unknown engine 'nosuch' (valid engines: auto, bitboard, exact, grigoryan, minconflicts, sat)");
  }
}

}  // namespace
}  // namespace nqc
