// Engines against the published labels of CSPLib prob079 (excluded diagonals).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/verifier.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

struct Label {
  int n, d;
  std::string file;  // diag-N-4-SEED.param
  bool sat;
};

std::string run(const std::string& command) {
  std::string out;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char buf[4096];
  std::size_t got = 0;
  while ((got = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, got);
  pclose(pipe);
  return out;
}

class Csplib : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("nqc-csplib-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const std::string data = NQC_TEST_DATA_DIR "/csplib-prob079";
    for (int n : {10, 11, 12, 13})
      ASSERT_EQ(std::system(("tar xzf " + data + "/diag-" + std::to_string(n) + ".tar.gz -C " + dir_.string()).c_str()),
                0);
    std::istringstream in(run("zcat " + data + "/labels-shiftqueens-n8-13.txt.gz"));
    std::string line;
    while (std::getline(in, line)) {
      Label l{};
      int mininfile = 0, seed = 0, timeout = 1;
      char path[512];
      int solutions = -1;
      if (std::sscanf(line.c_str(), "%d %d %d %d %511[^:]:Solutions: %d Nodes: %*s Timeout: %d", &l.n, &l.d, &mininfile,
                      &seed, path, &solutions, &timeout) != 7 ||
          timeout != 0)
        continue;
      l.file = "diag-" + std::to_string(l.n) + "/diag-" + std::to_string(l.n) + "-4-" + std::to_string(seed) + ".param";
      l.sat = solutions > 0;
      labels_.push_back(l);
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  // Checks the complete engines against every label of board size n (every `stride`-th one).
  static void check(int n, std::size_t stride, int& checked, int& unsat) {
    std::size_t seen = 0;
    for (const Label& l : labels_) {
      if (l.n != n || seen++ % stride != 0) continue;
      const Composition board = read_param(dir_ / l.file, l.d).board;
      for (const char* name : {"exact", "auto", "bitboard", "sat"}) {
        Rng rng(static_cast<std::uint64_t>(seen), 1);
        const Result r = make_engine(name)->complete(board, rng, Limits{});
        ASSERT_EQ(r.outcome, l.sat ? Outcome::solved : Outcome::infeasible) << name << " " << l.file << " d = " << l.d;
        if (l.sat) {
          ASSERT_TRUE(is_solution(r.solution)) << name << " " << l.file << " d = " << l.d;
        }
      }
      ++checked;
      unsat += l.sat ? 0 : 1;
    }
  }

  static inline fs::path dir_;
  static inline std::vector<Label> labels_;
};

TEST_F(Csplib, LabelsLoaded) {
  // Lines per n in the labels file: 12000, 15000, 17000, 20000 (a few time out).
  std::map<int, int> per_n;
  for (const Label& l : labels_) ++per_n[l.n];
  EXPECT_EQ(per_n[10], 12000);
  EXPECT_EQ(per_n[11], 15000);
  EXPECT_GT(per_n[12], 16900);
  EXPECT_GT(per_n[13], 19900);
}

TEST_F(Csplib, EveryLabelOfN10) {
  int checked = 0, unsat = 0;
  check(10, 1, checked, unsat);
  EXPECT_EQ(checked, 12000);
  EXPECT_EQ(unsat, 6279);  // "Solutions: 0" lines of n = 10
}

TEST_F(Csplib, EveryLabelOfN11) {
  int checked = 0, unsat = 0;
  check(11, 1, checked, unsat);
  EXPECT_EQ(checked, 15000);
  EXPECT_EQ(unsat, 8179);  // "Solutions: 0" lines of n = 11
}

TEST_F(Csplib, FixedSampleOfN12And13) {
  int checked = 0, unsat = 0;
  check(12, 17, checked, unsat);
  check(13, 19, checked, unsat);
  EXPECT_GT(checked, 1900);
  EXPECT_GT(unsat, 500);
}

TEST_F(Csplib, CountAgreesWithSatisfiability) {
  std::size_t seen = 0;
  for (const Label& l : labels_) {
    if (l.n != 10 || seen++ % 7 != 0) continue;
    const CountResult c = count_completions(read_param(dir_ / l.file, l.d).board, Limits{});
    ASSERT_EQ(c.completions > 0, l.sat) << l.file << " d = " << l.d;
  }
}

std::string param_error(const std::string& text, std::optional<int> diags = std::nullopt) {
  try {
    (void)parse_param(text, "x.param", diags);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CsplibParse, ReadsPairsAndAppliesTheFirstD) {
  const ParamInstance p = parse_param("n =  10\nnumdiags =  3\ndiags =  [[18, 0], [1, 1], [4, 0]]\n", "x.param", 2);
  EXPECT_EQ(p.board.n(), 10);
  EXPECT_EQ(p.board.k(), 0);
  EXPECT_EQ(p.numdiags, 3);
  EXPECT_EQ(p.used, 2);
  EXPECT_EQ(p.board.excluded_difference, std::vector<Index>{18});
  EXPECT_EQ(p.board.excluded_sum, std::vector<Index>{1});
}

TEST(CsplibParse, KeepsEveryPairInOrderAndFormatsTheUsedOnesBack) {
  const ParamInstance p = parse_param("n =  10\nnumdiags =  3\ndiags =  [[18, 0], [1, 1], [4, 0]]\n", "x.param", 2);
  EXPECT_EQ(p.pairs, (std::vector<DiagonalPair>{{18, 0}, {1, 1}, {4, 0}}));
  // What nqc export writes for the case: the used pairs as a file of their own, whose default
  // (all of them) is the same board.
  const std::vector<DiagonalPair> used(p.pairs.begin(), p.pairs.begin() + p.used);
  const std::string text = format_param(10, used);
  EXPECT_EQ(text, "n =  10\nnumdiags =  2\ndiags =  [[18, 0], [1, 1]]\n");
  const ParamInstance again = parse_param(text, "exported.param", std::nullopt);
  EXPECT_EQ(again.board.n(), 10);
  EXPECT_EQ(again.board.excluded_difference, p.board.excluded_difference);
  EXPECT_EQ(again.board.excluded_sum, p.board.excluded_sum);
  EXPECT_EQ(again.used, 2);
}

TEST(CsplibParse, LooksLikeParamByContent) {
  EXPECT_TRUE(looks_like_param("n = 10\nnumdiags = 0\ndiags = []\n"));
  EXPECT_TRUE(looks_like_param("\xEF\xBB\xBF\r\n  \tn = 4\n"));  // BOM, blank line, blanks
  EXPECT_FALSE(looks_like_param("# comment\n1 3 0 2\n"));
  EXPECT_FALSE(looks_like_param("  4\n2\n"));
  EXPECT_FALSE(looks_like_param("\x89NQC\r\n\x1a\n"));  // the binary magic
  EXPECT_FALSE(looks_like_param(""));
  EXPECT_FALSE(looks_like_param(" \n\r\n"));
}

TEST(CsplibParse, BadInputMessages) {
  const std::string head = "n = 10\nnumdiags = 2\n";
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [2, 1]\n"),
            "x.param:3: malformed diags list (expected [[index, 0 or 1], ...])");
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [2]]\n"),
            "x.param:3: diags[1]: expected a pair [index, 0 or 1], got [2]");
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [19, 1]]\n"),
            "x.param:3: diags[1]: diagonal index 19 is out of range 0..18");
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [-1, 1]]\n"),
            "x.param:3: diags[1]: diagonal index -1 is out of range 0..18");
  EXPECT_EQ(param_error(head + "diags = [[1, 2], [3, 1]]\n"),
            "x.param:3: diags[0]: expected type 0 (difference) or 1 (sum), got 2");
  EXPECT_EQ(param_error(head + "diags = [[1, 0]]\n"), "x.param:3: the diags list has 1 pairs, numdiags says 2");
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [2, 1]]\n", 3), "x.param: --diags 3 is above numdiags = 2");
  EXPECT_EQ(param_error("n = ten\n"), "x.param:1: expected n = a board size >= 1, got 'ten'");
  EXPECT_EQ(param_error("numdiags = 0\ndiags = []\n"), "x.param: missing line 'n = ...'");
  EXPECT_EQ(param_error("n = 4\nnumdiags = 0\ndiags = []\nfoo\n"),
            "x.param:4: expected 'n = ', 'numdiags = ' or 'diags = ', got 'foo'");
  // Each key once (the last one silently won: n = 10 read as 11).
  EXPECT_EQ(param_error("n = 10\nn = 11\nnumdiags = 0\ndiags = []\n"),
            "x.param:2: 'n = ' given twice (first on line 1); give each key once");
  EXPECT_EQ(param_error(head + "diags = []\nnumdiags = 0\n"),
            "x.param:4: 'numdiags = ' given twice (first on line 2); give each key once");
  EXPECT_EQ(param_error(head + "diags = [[1, 0], [2, 1]]\n\ndiags = []\n"),
            "x.param:5: 'diags = ' given twice (first on line 3); give each key once");
}

TEST(CsplibParse, VerifierRejectsQueensOnExcludedDiagonals) {
  Composition c({2, 4, 1, 3});
  c.excluded_sum = {4};  // row 1 (0-based) has its queen in column 3 (0-based): r + c = 4
  const Verdict v = verify(c);
  EXPECT_EQ(v.kind, Conflict::excluded_diagonal);
  EXPECT_EQ(v.row_a, 1);
  EXPECT_EQ(v.describe(c), "row 2: the queen in column 4 stands on an excluded diagonal");
  c.excluded_sum.clear();
  // Difference index 3 is r - c = 0, the main diagonal: 2413 has no queen on it.
  c.excluded_difference = {3};
  EXPECT_TRUE(verify(c).ok());
}

}  // namespace
}  // namespace nqc

namespace nqc {
namespace {

// CSPLib's placed-queens procedure as queens-gen-fast.py writes it: n^2 attempts, each a random
// free row and free column, no early end.
std::optional<Composition> placed_queens_as_published(Index n, Index queens, Rng& rng) {
  Composition c(n);
  std::vector<Index> rows(static_cast<std::size_t>(n)), cols(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = cols[static_cast<std::size_t>(i)] = i;
  std::set<Index> sums, differences;
  std::size_t left = static_cast<std::size_t>(n);
  if (queens == 0) return c;
  for (Index attempt = 0; attempt < n * n; ++attempt) {
    const auto i = static_cast<std::size_t>(rng.below(left)), j = static_cast<std::size_t>(rng.below(left));
    if (sums.count(rows[i] + cols[j]) > 0 || differences.count(rows[i] - cols[j]) > 0) continue;
    sums.insert(rows[i] + cols[j]);
    differences.insert(rows[i] - cols[j]);
    c.q[static_cast<std::size_t>(rows[i])] = cols[j] + 1;
    rows[i] = rows[left - 1];
    cols[j] = cols[left - 1];
    if (n - static_cast<Index>(--left) == queens) return c;
  }
  return std::nullopt;
}

// nqc's draw ends as soon as no queen can stand: the same outcome as the published procedure
// (the same composition from the same seed, or none), failed draws included.
TEST(Generators, PlacedQueensGiveThePublishedProcedureOutcome) {
  int placed = 0, failed = 0;
  for (Index n = 4; n <= 30; ++n)
    for (const Index free_rows : {Index{1}, Index{2}, n / 4 + 1, n / 2})
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        Rng a(seed, static_cast<std::uint64_t>(n)), b(seed, static_cast<std::uint64_t>(n));
        const auto ours = random_placed_queens(n, n - free_rows, a);
        const auto published = placed_queens_as_published(n, n - free_rows, b);
        ASSERT_EQ(ours.has_value(), published.has_value()) << "n = " << n << ", f = " << free_rows << ", seed " << seed;
        if (!ours) {
          ++failed;
          continue;
        }
        ++placed;
        ASSERT_EQ(ours->q, published->q) << "n = " << n << ", f = " << free_rows << ", seed " << seed;
        EXPECT_EQ(ours->k(), n - free_rows);
        EXPECT_TRUE(verify(*ours).ok()) << "n = " << n;
      }
  EXPECT_GT(placed, 500);  // both outcomes occur
  EXPECT_GT(failed, 500);
}

// The first `most` diagonals are those of the whole list; each row and column keeps more than
// 4 open cells.
TEST(Generators, ExcludedDiagonalsStopAfterMostWithTheSamePrefix) {
  for (Index n = 5; n <= 40; n += 5)
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      Rng full_rng(seed, 0);
      const auto full = random_excluded_diagonals(n, 4, full_rng);
      ASSERT_GE(full.size(), static_cast<std::size_t>(n - 4));  // nothing is refused before then
      for (const std::size_t most :
           {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(n), full.size(), full.size() + 3}) {
        Rng rng(seed, 0);
        const auto first = random_excluded_diagonals(n, 4, rng, most);
        ASSERT_EQ(first.size(), std::min(most, full.size())) << "n = " << n;
        for (std::size_t i = 0; i < first.size(); ++i) {
          EXPECT_EQ(first[i].index, full[i].index);
          EXPECT_EQ(first[i].type, full[i].type);
        }
      }
      std::vector<int> in_row(static_cast<std::size_t>(n), n), in_column(static_cast<std::size_t>(n), n);
      for (const DiagonalPair& p : full)
        for (Index r = 0; r < n; ++r) {
          const Index c = p.type == 1 ? p.index - r : r - p.index + n - 1;
          if (c < 0 || c >= n) continue;
          --in_row[static_cast<std::size_t>(r)];
          --in_column[static_cast<std::size_t>(c)];
        }
      EXPECT_GT(*std::min_element(in_row.begin(), in_row.end()), 3) << "n = " << n;
      EXPECT_GT(*std::min_element(in_column.begin(), in_column.end()), 3) << "n = " << n;
    }
}

}  // namespace
}  // namespace nqc
