// The complete engines bitboard and sat: verdicts against brute force and against
// each other, counts, the word layouts (1 and 2 words, board- and compact-indexed), limits.
#include <gtest/gtest.h>

#include "printers.hpp"

#include "brute_force.hpp"

#include <atomic>

#include "core/construction.hpp"
#include "core/engine.hpp"
#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/sat.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"
#include "formats/csplib.hpp"

namespace nqc {
namespace {

using nqc::testing::brute_force_completions;
using nqc::testing::random_consistent;

// Up to `diagonals` random diagonals excluded, then up to k random queens kept consistent.
Composition random_excluded(Index n, int diagonals, Index k, Rng& rng) {
  Composition c(n);
  for (int i = 0; i < diagonals; ++i) {
    const auto a = static_cast<Index>(rng.below(static_cast<std::uint64_t>(2 * n - 1)));
    (rng.below(2) == 1 ? c.excluded_sum : c.excluded_difference).push_back(a);
  }
  nqc::testing::add_random_queens(c, k, rng);
  return c;
}

// The verdict of a complete engine as 1 (solved, the solution checked) or 0 (infeasible).
int verdict(const std::string& engine, const Composition& c, std::uint64_t seed) {
  Rng rng(seed, 1);
  const Result r = make_engine(engine)->complete(c, rng, Limits{});
  EXPECT_NE(r.outcome, Outcome::gave_up) << engine;
  if (r.outcome == Outcome::solved) {
    EXPECT_TRUE(is_solution(r.solution)) << engine;
    EXPECT_TRUE(extends(r.solution, c)) << engine;
  }
  return r.outcome == Outcome::solved ? 1 : 0;
}

TEST(CompleteSearch, BitboardAndSatAgreeWithBruteForce) {
  Rng rng(12);
  int solved = 0, infeasible = 0;
  for (Index n = 4; n <= 9; ++n)
    for (int t = 0; t < 40; ++t) {
      const Composition c = random_excluded(n, static_cast<int>(rng.below(static_cast<std::uint64_t>(n))),
                                            static_cast<Index>(rng.below(static_cast<std::uint64_t>(n - 1))), rng);
      const std::uint64_t brute = brute_force_completions(c);
      for (const char* engine : {"bitboard", "sat"})
        ASSERT_EQ(verdict(engine, c, static_cast<std::uint64_t>(t)), brute > 0 ? 1 : 0)
            << engine << " n = " << n << " t = " << t;
      EXPECT_EQ(count_bitboard(c, Limits{}).completions, brute) << "n = " << n << " t = " << t;
      (brute > 0 ? solved : infeasible) += 1;
    }
  EXPECT_GT(solved, 50);
  EXPECT_GT(infeasible, 50);
}

TEST(CompleteSearch, EmptyBoardCountsMatchOeis) {
  // OEIS A000170, n = 1..12, by the word search's counter (no symmetry).
  const std::uint64_t q[] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200};
  for (Index n = 1; n <= 12; ++n)
    EXPECT_EQ(count_bitboard(Composition(n), Limits{}).completions, q[n - 1]) << "n = " << n;
}

// Every layout of the word search (W = 1 and 2 words; board columns for n <= 64 W, free
// columns beyond) against exact: derived compositions (completable by construction), and the
// same with f random diagonals through their free rows excluded (both verdicts present).
// With least-damage order the word search is exact's search on other data structures: the
// same placements tried in the same order (equal nodes, solutions and verdicts, also when the
// node limit stops both).
TEST(CompleteSearch, EveryWordLayoutAgreesWithExact) {
  int solved = 0, infeasible = 0;
  const Limits limits{40000, 0, nullptr};
  struct Shape {
    Index n;
    Index free;
  };
  for (const Shape s : {Shape{40, 24}, Shape{100, 20}, Shape{100, 70}, Shape{300, 20}, Shape{300, 90}}) {
    Rng rng(derive_seed(12, static_cast<std::uint64_t>(s.n), 0, kSolutionStream));
    const Composition solution = random_solution(s.n, rng);
    for (int t = 0; t < 12; ++t) {
      Composition c = derive_composition(solution, s.n - s.free, rng);
      ASSERT_EQ(verdict("bitboard", c, static_cast<std::uint64_t>(t)), 1) << "n = " << s.n << " t = " << t;
      // Exclude random diagonals through free rows that hold no queen of c.
      std::vector<Index> free_rows;
      for (Index r = 0; r < s.n; ++r)
        if (c.is_free_row(r)) free_rows.push_back(r);
      for (int added = 0; added < s.free;) {
        Composition e = c;
        const Index r = free_rows[rng.below(free_rows.size())];
        const auto col = static_cast<Index>(rng.below(static_cast<std::uint64_t>(s.n)));
        if (rng.below(2) == 1)
          e.excluded_sum.push_back(r + col);
        else
          e.excluded_difference.push_back(r - col + s.n - 1);
        if (!verify(e).ok()) continue;
        c = std::move(e);
        ++added;
      }
      Rng xr(5, 1), br(5, 1), rr(static_cast<std::uint64_t>(t), 1);
      const Result x = complete_exact(c, xr, limits);
      // exact's search on words: its value order, its rows only, its restarts.
      BitboardParams as_exact;
      as_exact.least_damage = true;
      as_exact.column_branching = false;
      as_exact.luby_restart_nodes = UINT64_MAX;
      const Result b = complete_bitboard(c, br, limits, as_exact);
      ASSERT_EQ(b.outcome, x.outcome) << "n = " << s.n << " t = " << t;
      EXPECT_EQ(b.counters.nodes, x.counters.nodes) << "n = " << s.n << " t = " << t;
      EXPECT_EQ(b.solution, x.solution) << "n = " << s.n << " t = " << t;
      if (x.outcome == Outcome::gave_up) continue;
      const Result r = complete_bitboard(c, rr, Limits{});  // random order, no limit
      ASSERT_EQ(r.outcome, x.outcome) << "n = " << s.n << " t = " << t;
      if (r.outcome == Outcome::solved) {
        ASSERT_TRUE(is_solution(r.solution));
        ASSERT_TRUE(extends(r.solution, c));
      }
      (x.outcome == Outcome::solved ? solved : infeasible) += 1;
    }
  }
  EXPECT_GT(solved, 10);
  EXPECT_GT(infeasible, 10);
}

// Instances of CSPLib's generator procedure at the phase transition (d = n - 2): the three
// complete engines give one verdict; each verdict is among them.
TEST(CompleteSearch, InfeasibleVerdictsCrossCheckedOnGeneratedInstances) {
  int solved = 0, infeasible = 0;
  for (Index n : {12, 13, 14, 15})
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
      Rng rng(seed, static_cast<std::uint64_t>(n));
      const auto pairs = random_excluded_diagonals(n, 4, rng);
      const Composition board = excluded_board(n, pairs, static_cast<std::size_t>(n - 2));
      const int b = verdict("bitboard", board, seed);
      ASSERT_EQ(verdict("sat", board, seed), b) << "n = " << n << " seed " << seed;
      ASSERT_EQ(verdict("exact", board, seed), b) << "n = " << n << " seed " << seed;
      ASSERT_EQ(verdict("auto", board, seed), b) << "n = " << n << " seed " << seed;
      // bitboard's other orders: Luby restarts first (shuffled runs), rows only, both.
      for (const auto& [restart_nodes, columns] : {std::pair{1024ULL, true}, {0ULL, false}, {UINT64_MAX, false}}) {
        BitboardParams p;
        p.luby_restart_nodes = restart_nodes;
        p.column_branching = columns;
        Rng brng(seed, 2);
        const Result r = complete_bitboard(board, brng, Limits{}, p);
        ASSERT_EQ(r.outcome, b == 1 ? Outcome::solved : Outcome::infeasible) << "n = " << n << " seed " << seed;
        if (b == 1) {
          ASSERT_TRUE(is_solution(r.solution));
          ASSERT_TRUE(extends(r.solution, board));
        }
      }
      (b == 1 ? solved : infeasible) += 1;
    }
  EXPECT_GT(solved, 8);
  EXPECT_GT(infeasible, 8);
}

TEST(CompleteSearch, GeneratorFollowsCsplibsRules) {
  Rng rng(3, 11);
  const auto pairs = random_excluded_diagonals(11, 4, rng);
  // Every row and column keeps more than mininfile = 4 open cells after all pairs.
  const Composition board = excluded_board(11, pairs, pairs.size());
  for (Index r = 0; r < 11; ++r) {
    int row = 0, column = 0;
    for (Index c = 0; c < 11; ++c) {
      Composition one = board;
      one.q[static_cast<std::size_t>(r)] = c + 1;
      row += verify(one).ok() ? 1 : 0;
      Composition other = board;
      other.q[static_cast<std::size_t>(c)] = r + 1;
      column += verify(other).ok() ? 1 : 0;
    }
    EXPECT_GE(row, 4) << "row " << r;
    EXPECT_GE(column, 4) << "column " << r;
  }
  EXPECT_GT(pairs.size(), 11u);
  // The .param text reads back as the same instance.
  const ParamInstance p = parse_param(format_param(11, pairs), "g.param", 9);
  EXPECT_EQ(p.numdiags, static_cast<int>(pairs.size()));
  const Composition nine = excluded_board(11, pairs, 9);
  EXPECT_EQ(p.board.excluded_sum, nine.excluded_sum);
  EXPECT_EQ(p.board.excluded_difference, nine.excluded_difference);
}

// A generated n = 18 instance at d = 16 without a solution, proved in 1.46 million placements
// by bitboard and exact, more than 5000 decisions by sat: each limit stops each complete engine,
// named.
TEST(CompleteSearch, LimitsStopEveryCompleteEngine) {
  Rng grng(2, 18);
  const Composition board = excluded_board(18, random_excluded_diagonals(18, 4, grng), 16);
  const std::atomic<bool> stop{true};
  for (const char* engine : {"auto", "bitboard", "exact", "sat"}) {
    Rng rng(1, 1);
    const Result nodes = make_engine(engine)->complete(board, rng, Limits{5000, 0, nullptr});
    ASSERT_EQ(nodes.outcome, Outcome::gave_up) << engine;
    EXPECT_EQ(nodes.limit, StopReason::max_nodes) << engine;
    if (std::string(engine) != "sat") {
      EXPECT_EQ(nodes.counters.nodes, 5000u) << engine;
    }
    const Result time = make_engine(engine)->complete(board, rng, Limits{0, 1e-9, nullptr});
    EXPECT_EQ(time.outcome, Outcome::gave_up) << engine;
    EXPECT_EQ(time.limit, StopReason::time_limit) << engine;
    const Result stopped = make_engine(engine)->complete(board, rng, Limits{0, 0, &stop});
    EXPECT_EQ(stopped.outcome, Outcome::gave_up) << engine;
    EXPECT_EQ(stopped.limit, StopReason::stop) << engine;
  }
}

TEST(CompleteSearch, ResidualsBeyondAnEnginesReachAreRefusedByName) {
  Rng rng(1);
  try {
    (void)make_engine("bitboard")->complete(Composition(200), rng, {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "engine 'bitboard' takes at most 128 free rows, this composition has 200 (use auto or exact)");
  }
  try {
    (void)make_engine("sat")->complete(Composition(501), rng, {});
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "engine 'sat' takes at most 500 free rows, this composition has 501 (use auto or exact)");
  }
  EXPECT_EQ(engine_info("bitboard").max_free_rows, kBitboardMaxFree);
  EXPECT_EQ(engine_info("sat").max_free_rows, kSatMaxFree);
}

TEST(CompleteSearch, SatIsDeterministic) {
  Composition c(30);
  c.q[3] = 7;
  c.q[20] = 11;
  Rng a(11), b(11);
  const Result ra = make_engine("sat")->complete(c, a, {});
  const Result rb = make_engine("sat")->complete(c, b, {});
  ASSERT_EQ(ra.outcome, Outcome::solved);
  EXPECT_EQ(ra.solution, rb.solution);
}

}  // namespace
}  // namespace nqc
