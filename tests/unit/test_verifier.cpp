#include <gtest/gtest.h>

#include "core/construction.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

Composition C(std::vector<Index> q) { return Composition(std::move(q)); }

TEST(Verifier, AcceptsKnownSolutionsAndEmptyBoards) {
  EXPECT_TRUE(verify(C({2, 4, 1, 3})).ok());
  EXPECT_TRUE(is_solution(C({2, 4, 1, 3})));
  EXPECT_TRUE(is_solution(C({1, 5, 8, 6, 3, 7, 2, 4})));  // the first 8-queens solution
  EXPECT_TRUE(verify(C({0, 0, 0})).ok());
  EXPECT_FALSE(is_solution(C({0, 0, 0})));
  // The paper's example: Q = (0, 0, 5, 0, 4, 0, 0, 3, 0, 0), k = 3 on n = 10.
  const Composition paper = C({0, 0, 5, 0, 4, 0, 0, 3, 0, 0});
  EXPECT_TRUE(verify(paper).ok());
  EXPECT_EQ(paper.k(), 3);
}

TEST(Verifier, NamesColumnConflictWithBothRows) {
  const Composition c = C({3, 0, 0, 0, 3, 0});
  const Verdict v = verify(c);
  EXPECT_EQ(v.kind, Conflict::column);
  EXPECT_EQ(v.row_a, 0);
  EXPECT_EQ(v.row_b, 4);
  EXPECT_EQ(v.describe(c), "rows 1 and 5: two queens on one column (column 3)");
}

TEST(Verifier, NamesDiagonalConflict) {
  // Rows 2 and 4 (1-based), columns 1 and 3: i - Q(i) equal.
  const Composition c = C({0, 1, 0, 3, 0});
  const Verdict v = verify(c);
  EXPECT_EQ(v.kind, Conflict::diagonal);
  EXPECT_EQ(v.row_a, 1);
  EXPECT_EQ(v.row_b, 3);
  EXPECT_EQ(v.describe(c), "rows 2 and 4: two queens on one diagonal (columns 1 and 3)");
}

TEST(Verifier, NamesAntiDiagonalConflict) {
  const Composition c = C({5, 0, 0, 2, 0});
  const Verdict v = verify(c);
  EXPECT_EQ(v.kind, Conflict::anti_diagonal);
  EXPECT_EQ(v.row_a, 0);
  EXPECT_EQ(v.row_b, 3);
  EXPECT_EQ(v.describe(c), "rows 1 and 4: two queens on one anti-diagonal (columns 5 and 2)");
}

TEST(Verifier, NamesOutOfRangeValues) {
  Composition above = C({0, 5, 0, 0});
  Verdict v = verify(above);
  EXPECT_EQ(v.kind, Conflict::out_of_range);
  EXPECT_EQ(v.row_a, 1);
  EXPECT_EQ(v.describe(above), "row 2: value 5 is out of range 0..4");
  Composition negative = C({0, 0, -1, 0});
  v = verify(negative);
  EXPECT_EQ(v.kind, Conflict::out_of_range);
  EXPECT_EQ(v.describe(negative), "row 3: value -1 is out of range 0..4");
}

TEST(Verifier, ReportsEarliestConflictAndEarliestPartner) {
  // Row 4 repeats row 1's column, but the scan stops earlier, at row 3, which shares a
  // diagonal with row 2.
  const Composition c = C({1, 3, 4, 1, 0, 0});
  const Verdict v = verify(c);
  EXPECT_EQ(v.kind, Conflict::diagonal);
  EXPECT_EQ(v.row_a, 1);
  EXPECT_EQ(v.row_b, 2);
}

TEST(Verifier, EveryWrongSolutionOfSizeFiveIsCaught) {
  // Exhaustive: every permutation of 1..5 is either one of the 10 solutions or caught, and
  // the verdict agrees with a brute-force pairwise check.
  std::vector<Index> p{1, 2, 3, 4, 5};
  int solutions = 0;
  do {
    bool brute_ok = true;
    for (int i = 0; i < 5; ++i)
      for (int j = i + 1; j < 5; ++j)
        if (std::abs(p[i] - p[j]) == j - i) brute_ok = false;
    EXPECT_EQ(verify(C(p)).ok(), brute_ok);
    solutions += brute_ok ? 1 : 0;
  } while (std::next_permutation(p.begin(), p.end()));
  EXPECT_EQ(solutions, 10);
}

TEST(Verifier, ExtendsChecksGivenQueens) {
  const Composition s = C({2, 4, 1, 3});
  EXPECT_TRUE(extends(s, C({0, 4, 0, 0})));
  EXPECT_FALSE(extends(s, C({0, 3, 0, 0})));
  EXPECT_FALSE(extends(s, C({0, 4, 0})));
}

}  // namespace
}  // namespace nqc

namespace nqc {
namespace {

// The digest stands in for the composition when an engine consumed it.
TEST(CompositionDigest, ChecksACompletionLikeTheComposition) {
  const Composition composition(std::vector<Index>{2, 0, 0, 0});  // n = 4, queen in row 1, column 2
  const Composition solution(std::vector<Index>{2, 4, 1, 3});
  const CompositionDigest d = digest(composition);
  EXPECT_EQ(d.n, 4);
  EXPECT_EQ(d.k, 1);
  EXPECT_TRUE(extends(solution, d));
  EXPECT_TRUE(extends(solution, digest(solution)));
  // The other solution of n = 4 moves the composition's queen: refused, as by extends().
  const Composition other(std::vector<Index>{3, 1, 4, 2});
  EXPECT_FALSE(extends(other, composition));
  EXPECT_FALSE(extends(other, d));
  EXPECT_FALSE(extends(Composition(std::vector<Index>{0, 4, 1, 3}), d));  // the queen dropped
  EXPECT_FALSE(extends(Composition(5), d));                               // another n
  EXPECT_TRUE(extends(Composition(4), digest(Composition(4))));           // nothing to keep
}

}  // namespace
}  // namespace nqc
