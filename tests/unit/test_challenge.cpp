// The paper's challenge pair: at n = 10^6, as README command (b) can afford.
#include <gtest/gtest.h>

#include <set>

#include "core/challenge.hpp"
#include "core/engines/auto.hpp"
#include "core/lines.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

TEST(Challenge, OneCompletableOneProvedInfeasibleAtAMillion) {
  const Index n = 1000000, f = 518;
  Rng rng(2019, 7);
  Composition first = random_solution(n, rng);
  const Composition solution = first;
  const Challenge ch = make_challenge(first, f, rng, 2000);
  Composition second = first;
  apply_changes(second, ch);

  // Both consistent, the same n, the same free rows; they differ in the changed rows only.
  ASSERT_TRUE(verify(first).ok());
  ASSERT_TRUE(verify(second).ok());
  EXPECT_EQ(first.k(), n - f);
  EXPECT_EQ(second.k(), n - f);
  EXPECT_TRUE(extends(solution, first));
  std::set<Index> changed;
  for (const auto& [row, column] : ch.changes) changed.insert(row);
  EXPECT_EQ(changed.size(), ch.changes.size());
  EXPECT_GE(changed.size(), 2000u);
  EXPECT_LE(changed.size(), 2100u);
  for (Index r = 0; r < n; ++r) {
    const auto i = static_cast<std::size_t>(r);
    EXPECT_EQ(first.q[i] == 0, second.q[i] == 0);
    if (changed.count(r) == 0)
      ASSERT_EQ(first.q[i], second.q[i]) << r;
    else
      ASSERT_NE(first.q[i], second.q[i]) << r;
  }
  // The dead row is free, and none of its cells in a free column is free in the second.
  ASSERT_EQ(second.q[static_cast<std::size_t>(ch.dead_row)], 0);
  Bitset used(n), d1(2 * static_cast<std::size_t>(n)), d2(2 * static_cast<std::size_t>(n));
  for (Index r = 0; r < n; ++r)
    if (const Index j = second.q[static_cast<std::size_t>(r)]; j != 0) {
      used.set(static_cast<std::size_t>(j - 1));
      d1.set(diff_line(n, r, j - 1));
      d2.set(sum_line(r, j - 1));
    }
  int free_cells = 0;
  for (Index c = 0; c < n; ++c)
    if (!used.test(static_cast<std::size_t>(c)) && !d1.test(diff_line(n, ch.dead_row, c)) &&
        !d2.test(sum_line(ch.dead_row, c)))
      ++free_cells;
  EXPECT_EQ(free_cells, 0);

  // auto solves the first and proves the second infeasible.
  Rng e1(1), e2(1);
  const Result a = complete_auto(first, e1, Limits{});
  ASSERT_EQ(a.outcome, Outcome::solved);
  EXPECT_TRUE(is_solution(a.solution));
  EXPECT_TRUE(extends(a.solution, first));
  const Result b = complete_auto(second, e2, Limits{});
  EXPECT_EQ(b.outcome, Outcome::infeasible);
}

TEST(Challenge, RefusesBadSizes) {
  Rng rng(1);
  Composition s = random_solution(100, rng);
  EXPECT_THROW(make_challenge(s, 0, rng), std::invalid_argument);
  EXPECT_THROW(make_challenge(s, 51, rng), std::invalid_argument);
  Composition tiny(std::vector<Index>{2, 4, 1, 3});
  EXPECT_THROW(make_challenge(tiny, 1, rng), std::invalid_argument);
}

}  // namespace
}  // namespace nqc
