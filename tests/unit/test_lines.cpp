// Line indices at the largest board size.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "core/lines.hpp"

#include <vector>

namespace nqc {
namespace {

constexpr Index kMax = std::numeric_limits<Index>::max();  // n = 2^31 - 1

// Evaluated by the compiler: signed overflow in a constant expression does not compile.
static_assert(diff_line(kMax, 0, kMax - 1) == 0);
static_assert(diff_line(kMax, kMax - 1, 0) == 4294967292ULL);         // 2n - 2
static_assert(diff_line(kMax, kMax - 1, kMax - 1) == 2147483646ULL);  // n - 1, the long diagonal
static_assert(sum_line(kMax - 1, kMax - 1) == 4294967292ULL);
static_assert(sum_line(0, 0) == 0);
static_assert(diagonal_lines(kMax) == 4294967293ULL);  // 2n - 1
static_assert(diagonal_lines(1) == 1);

TEST(Lines, EveryCellOfASmallBoardHasItsOwnPairOfLines) {
  const Index n = 7;
  for (Index r = 0; r < n; ++r)
    for (Index c = 0; c < n; ++c) {
      EXPECT_LT(diff_line(n, r, c), diagonal_lines(n));
      EXPECT_LT(sum_line(r, c), diagonal_lines(n));
      EXPECT_EQ(static_cast<std::int64_t>(diff_line(n, r, c)), r - c + n - 1);
      // The two lines determine the cell.
      const auto d = static_cast<std::int64_t>(diff_line(n, r, c)) - (n - 1),
                 s = static_cast<std::int64_t>(sum_line(r, c));
      EXPECT_EQ((s + d) / 2, r);
      EXPECT_EQ((s - d) / 2, c);
    }
}

TEST(Lines, ExtremeCellsAtTheLargestBoard) {
  // Run time values (not folded), the cells in the four corners of n = 2^31 - 1.
  volatile Index n = kMax;
  const Index last = n - 1;
  EXPECT_EQ(diff_line(n, 0, last), 0u);
  EXPECT_EQ(diff_line(n, last, 0), 2 * static_cast<std::uint64_t>(kMax) - 2);
  EXPECT_EQ(sum_line(last, last), 2 * static_cast<std::uint64_t>(kMax) - 2);
  EXPECT_EQ(sum_line(last, 0), static_cast<std::uint64_t>(kMax) - 1);
}

TEST(Lines, BitsetSetsTestsAndResetsAcrossWords) {
  Bitset b(200);
  EXPECT_EQ(b.size(), 200u);
  for (const std::size_t i : {0u, 63u, 64u, 127u, 199u}) {
    EXPECT_FALSE(b.test(i));
    b.set(i);
    EXPECT_TRUE(b.test(i));
  }
  EXPECT_FALSE(b.test(1));
  EXPECT_FALSE(b.test(65));
  b.reset(64);
  EXPECT_FALSE(b.test(64));
  EXPECT_TRUE(b.test(63));
  EXPECT_TRUE(b.test(127));
}

// close_lines: the engines' check of their input and their line sets, in one pass.
TEST(Lines, CloseLinesSetsTheLinesAndChecksTheComposition) {
  Bitset used, diff, sum;
  const Composition ok(std::vector<Index>{2, 0, 0, 3});  // (0,1) and (3,2): no shared line
  EXPECT_NO_THROW(close_lines(ok, used, diff, sum));
  EXPECT_TRUE(used.test(1));
  EXPECT_TRUE(used.test(2));
  EXPECT_FALSE(used.test(0));
  EXPECT_TRUE(diff.test(diff_line(4, 0, 1)));
  EXPECT_TRUE(sum.test(sum_line(3, 2)));
  EXPECT_FALSE(sum.test(sum_line(0, 0)));
  EXPECT_THROW(close_lines(Composition(std::vector<Index>{2, 0, 2, 0}), used, diff, sum),
               std::invalid_argument);  // one column
  EXPECT_THROW(close_lines(Composition(std::vector<Index>{1, 2, 0, 0}), used, diff, sum),
               std::invalid_argument);  // one diagonal
  EXPECT_THROW(close_lines(Composition(std::vector<Index>{0, 2, 1, 0}), used, diff, sum),
               std::invalid_argument);  // one anti-diagonal
  EXPECT_THROW(close_lines(Composition(std::vector<Index>{5, 0, 0, 0}), used, diff, sum),
               std::invalid_argument);  // out of range
  Composition excluded(std::vector<Index>{2, 0, 0, 0});
  excluded.excluded_sum = {1};  // r + c = 1 holds (0, 1)
  EXPECT_THROW(close_lines(excluded, used, diff, sum), std::invalid_argument);
  excluded.q[0] = 1;
  EXPECT_NO_THROW(close_lines(excluded, used, diff, sum));
  EXPECT_TRUE(sum.test(1));  // the excluded diagonal is closed
}

}  // namespace
}  // namespace nqc
