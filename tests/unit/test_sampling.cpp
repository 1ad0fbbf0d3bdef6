#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <set>

#include "core/engine.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

TEST(Rng, DeriveSeedSeparatesEveryCoordinate) {
  const std::uint64_t base = derive_seed(1, 100, 2, 3);
  EXPECT_EQ(base, derive_seed(1, 100, 2, 3));
  EXPECT_NE(base, derive_seed(2, 100, 2, 3));
  EXPECT_NE(base, derive_seed(1, 101, 2, 3));
  EXPECT_NE(base, derive_seed(1, 100, 3, 3));
  EXPECT_NE(base, derive_seed(1, 100, 2, 4));
  EXPECT_NE(derive_seed(1, 100, 2, 3), derive_seed(1, 100, 3, 2));
}

TEST(Rng, BelowIsUniformEnough) {
  Rng rng(123);
  std::vector<int> hist(10, 0);
  for (int i = 0; i < 100000; ++i) ++hist[rng.below(10)];
  for (int h : hist) {
    EXPECT_GT(h, 9500);
    EXPECT_LT(h, 10500);
  }
}

// shuffle draws ahead and prefetches: its result must be the plain Fisher-Yates loop's, draw
// for draw, at every size (below, around and far above its look-ahead of 16).
TEST(Rng, ShuffleIsThePlainFisherYatesLoop) {
  for (const std::size_t size : {0, 1, 2, 3, 15, 16, 17, 18, 1000, 100000}) {
    std::vector<std::uint32_t> a(size), b(size);
    for (std::size_t i = 0; i < size; ++i) a[i] = b[i] = static_cast<std::uint32_t>(i);
    Rng ra(size, 3), rb(size, 3);
    shuffle(a.begin(), a.end(), ra);
    for (std::size_t i = size; i-- > 1;) std::swap(b[i], b[rb.below(i + 1)]);
    EXPECT_EQ(a, b) << size;
    EXPECT_EQ(ra(), rb()) << size;  // the same number of draws
  }
}

// shuffle_bucketed: Fisher-Yates below 2^21 entries; above, a permutation of the same values,
// the same for the same rng state, and every value moves with the right frequency.
TEST(Rng, ShuffleBucketedIsAPermutation) {
  std::vector<std::uint32_t> small(1000), reference(1000), buffer;
  for (std::uint32_t i = 0; i < 1000; ++i) small[i] = reference[i] = i;
  Rng a(5), b(5);
  shuffle_bucketed(small, a, buffer);
  shuffle(reference.begin(), reference.end(), b);
  EXPECT_EQ(small, reference);
  const std::size_t size = (std::size_t{1} << 22) + 12345;  // 4 buckets
  std::vector<std::uint32_t> v(size), w;
  for (std::size_t i = 0; i < size; ++i) v[i] = static_cast<std::uint32_t>(i);
  w = v;
  Rng c(9), d(9);
  shuffle_bucketed(v, c, buffer);
  shuffle_bucketed(w, d, buffer);
  EXPECT_EQ(v, w);
  std::vector<std::uint32_t> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < size; i += 4099) ASSERT_EQ(sorted[i], i);
  // A value lands in the first quarter with probability 1/4: 4 * size / 4 expected hits of
  // the values < size / 4 there, binomial standard deviation about 860.
  std::size_t stayed = 0;
  for (std::size_t i = 0; i < size / 4; ++i) stayed += v[i] < size / 4 ? 1 : 0;
  const double expected = static_cast<double>(size) / 16;
  EXPECT_NEAR(static_cast<double>(stayed), expected, 6 * std::sqrt(expected));
}

TEST(Sampling, RandomSolutionsAreVerifiedAndSeeded) {
  for (Index n : {1, 4, 5, 8, 10, 50, 100, 1000, 10000}) {
    Rng a(42), b(42), c(43);
    const Composition s = random_solution(n, a);
    EXPECT_TRUE(is_solution(s)) << n;
    EXPECT_EQ(s, random_solution(n, b)) << n;
    if (n >= 50) {
      EXPECT_NE(s, random_solution(n, c)) << n;
    }
  }
  Rng rng(1);
  EXPECT_THROW(random_solution(2, rng), std::invalid_argument);
  EXPECT_THROW(random_solution(3, rng), std::invalid_argument);
}

TEST(Sampling, RandomSolutionsCoverAllTenOfSizeFive) {
  std::set<std::vector<Index>> seen;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    Rng rng(seed);
    seen.insert(random_solution(5, rng).q);
  }
  EXPECT_EQ(seen.size(), 10u);
}

TEST(Sampling, DrawKStaysInRange) {
  Rng rng(9);
  std::set<Index> ks;
  for (int i = 0; i < 2000; ++i) {
    const Index k = draw_k(10, KRange{}, rng);
    ASSERT_GE(k, 1);
    ASSERT_LE(k, 9);
    ks.insert(k);
  }
  EXPECT_EQ(ks.size(), 9u);
  EXPECT_EQ(draw_k(1, KRange{}, rng), 0);
  EXPECT_EQ(draw_k(50, KRange{7, 7}, rng), 7);
}

TEST(Sampling, DerivedCompositionsKeepExactlyKQueensOfTheSolution) {
  Rng rng(5);
  const Composition s = random_solution(200, rng);
  for (Index k : {0, 1, 37, 199, 200}) {
    const Composition c = derive_composition(s, k, rng);
    EXPECT_EQ(c.k(), k);
    EXPECT_TRUE(extends(s, c));
  }
  EXPECT_THROW(derive_composition(s, 201, rng), std::invalid_argument);
}

// Derived in the solution's own memory: the same composition from the same draws.
TEST(Sampling, DerivedInPlaceIsTheSameComposition) {
  Rng srng(8);
  const Composition s = random_solution(500, srng);
  for (Index k : {0, 1, 250, 499, 500}) {
    Rng a(k, 3), b(k, 3);
    const Composition copied = derive_composition(s, k, a);
    Composition owned = s;
    const Composition in_place = derive_composition(std::move(owned), k, b);
    EXPECT_EQ(in_place, copied) << k;
    EXPECT_EQ(a(), b()) << k;  // the same number of draws
  }
  Composition owned = s;
  EXPECT_THROW(derive_composition(std::move(owned), 501, srng), std::invalid_argument);
}

TEST(Sampling, DerivedRowsAreUniform) {
  // Each row of n = 10 is kept with probability k / n = 0.3.
  Rng rng(77);
  const Composition s = random_solution(10, rng);
  std::vector<int> kept(10, 0);
  for (int t = 0; t < 20000; ++t) {
    const Composition c = derive_composition(s, 3, rng);
    for (Index i = 0; i < 10; ++i) kept[i] += c.is_free_row(i) ? 0 : 1;
  }
  for (int v : kept) {
    EXPECT_GT(v, 5700);
    EXPECT_LT(v, 6300);
  }
}

TEST(Sampling, HundredsOfDerivedCompositionsAreAllSolvedAndVerified) {
  int cases = 0;
  for (Index n : {4, 5, 8, 10, 20, 50, 100, 500, 1000}) {
    for (std::uint64_t sol = 0; sol < 6; ++sol) {
      Rng srng(derive_seed(3, n, sol, kSolutionStream));
      const Composition s = random_solution(n, srng);
      for (std::uint64_t comp = 0; comp < 10; ++comp) {
        Rng rng(derive_seed(3, n, sol, comp));
        const Composition c = derive_composition(s, draw_k(n, KRange{}, rng), rng);
        for (const auto& name : engine_names()) {
          if (name == "exact" && n > 100) continue;  // exact alone is for small residuals
          const Index max_free = engine_info(name).max_free_rows;
          if ((max_free != 0 && n - c.k() > max_free) || (name == "sat" && n > 100)) continue;
          Rng erng(derive_seed(3, n, sol, comp), 1);
          const Result r = make_engine(name)->complete(c, erng, Limits{});
          ASSERT_EQ(r.outcome, Outcome::solved) << name << " n=" << n;
          ASSERT_TRUE(is_solution(r.solution)) << name << " n=" << n;
          ASSERT_TRUE(extends(r.solution, c)) << name << " n=" << n;
        }
        ++cases;
      }
    }
  }
  EXPECT_EQ(cases, 540);
}

}  // namespace
}  // namespace nqc
