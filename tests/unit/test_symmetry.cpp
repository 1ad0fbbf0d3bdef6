#include <gtest/gtest.h>

#include <array>
#include <cstdint>

#include "core/engine.hpp"
#include "core/rng.hpp"
#include "core/symmetry.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// All consistent k-queen compositions of the n x n board, counted without symmetry.
std::uint64_t count_all(Index n, Index k, Index row = 0, std::uint64_t cols = 0, std::uint64_t sums = 0,
                        std::uint64_t diffs = 0) {
  if (k == 0) return 1;
  std::uint64_t total = 0;
  for (Index r = row; r + k <= n; ++r)
    for (Index c = 0; c < n; ++c) {
      const std::uint64_t cb = 1ULL << c, sb = 1ULL << (r + c), db = 1ULL << (r - c + n - 1);
      if ((cols & cb) || (sums & sb) || (diffs & db)) continue;
      total += count_all(n, k - 1, r + 1, cols | cb, sums | sb, diffs | db);
    }
  return total;
}

struct Tally {
  std::uint64_t canonical = 0;
  std::uint64_t expanded = 0;  // the orbit sizes added up
};

Tally tally(Index n, Index k) {
  Tally t;
  for (const Cell& first : canonical_first_cells(n))
    for_each_canonical_composition(n, k, first, [&](const std::vector<Cell>& queens, int size) {
      EXPECT_TRUE(verify(composition_of(n, queens)).ok());
      ++t.canonical;
      t.expanded += static_cast<std::uint64_t>(size);
      return true;
    });
  return t;
}

TEST(Symmetry, TheEightTransformsAreTheDihedralGroup) {
  const Index n = 7;
  const Cell p{1, 2};
  std::vector<Cell> images;
  for (int t = 0; t < 8; ++t) images.push_back(transform(p, n, t));
  EXPECT_EQ(transform(p, n, 0), p);
  EXPECT_EQ(transform(p, n, 2), (Cell{5, 4}));  // a half turn
  EXPECT_EQ(transform(p, n, 4), (Cell{1, 4}));  // the columns mirrored
  std::sort(images.begin(), images.end());
  EXPECT_EQ(std::unique(images.begin(), images.end()), images.end());  // a cell off every axis: 8 images
  EXPECT_EQ(orbit({{3, 3}}, n).size, 1);                               // the centre
  EXPECT_EQ(orbit({{0, 0}}, n).size, 4);                               // a corner
}

// Solutions (k = n): canonical ones are [OEIS-A002562], the orbit sizes add up to [OEIS-A000170].
TEST(Symmetry, SolutionsUpToSymmetryAreA002562) {
  const std::array<std::uint64_t, 10> a002562{1, 0, 0, 1, 2, 1, 6, 12, 46, 92};
  const std::array<std::uint64_t, 10> a000170{1, 0, 0, 2, 10, 4, 40, 92, 352, 724};
  for (Index n = 1; n <= 10; ++n) {
    const Tally t = tally(n, n);
    EXPECT_EQ(t.canonical, a002562[static_cast<std::size_t>(n - 1)]) << "n = " << n;
    EXPECT_EQ(t.expanded, a000170[static_cast<std::size_t>(n - 1)]) << "n = " << n;
  }
}

// Every consistent k-queen composition is counted once: the orbit sizes of the canonical ones
// add up to all of them (two queens: n(n-1)(n-2)(3n-1)/6, [OEIS-A036464]).
TEST(Symmetry, OrbitSizesAddUpToAllCompositions) {
  for (Index n = 2; n <= 9; ++n)
    for (Index k = 1; k <= std::min<Index>(n, 5); ++k)
      EXPECT_EQ(tally(n, k).expanded, count_all(n, k)) << "n = " << n << ", k = " << k;
  for (Index n = 2; n <= 12; ++n) {
    const auto un = static_cast<std::uint64_t>(n);
    EXPECT_EQ(tally(n, 2).expanded, un * (un - 1) * (un - 2) * (3 * un - 1) / 6) << "n = " << n;
  }
  EXPECT_EQ(tally(8, 1).canonical, 10u);  // the cells of an 8 x 8 board up to symmetry
}

// [OEIS-A374013]: the largest k such that every consistent k-queen composition of the n x n board
// completes. Each canonical composition is completed by `exact`; the first that is not
// (a witness of size a(n) + 1) is confirmed infeasible by `sat`.
TEST(Symmetry, CompletionThresholdA374013ForSmallBoards) {
  const std::array<Index, 9> a374013{0, 1, 0, 1, 1, 1, 2, 2, 2};  // n = 4..12
  auto exact = make_engine("exact");
  auto sat = make_engine("sat");
  for (Index n = 4; n <= 12; ++n) {
    Index threshold = -1;
    for (Index k = 1; k <= n && threshold < 0; ++k)
      for (const Cell& first : canonical_first_cells(n)) {
        bool witness = false;
        for_each_canonical_composition(n, k, first, [&](const std::vector<Cell>& queens, int) {
          const Composition c = composition_of(n, queens);
          Rng rng(1);
          const Result r = exact->complete(c, rng, Limits{});
          EXPECT_NE(r.outcome, Outcome::gave_up);
          if (r.outcome == Outcome::solved) {
            EXPECT_TRUE(is_solution(r.solution) && extends(r.solution, c));
            return true;
          }
          EXPECT_EQ(sat->complete(c, rng, Limits{}).outcome, Outcome::infeasible) << "n = " << n;
          witness = true;
          return false;
        });
        if (witness) {
          threshold = k - 1;
          break;
        }
      }
    EXPECT_EQ(threshold, a374013[static_cast<std::size_t>(n - 4)]) << "n = " << n;
  }
}

}  // namespace
}  // namespace nqc
