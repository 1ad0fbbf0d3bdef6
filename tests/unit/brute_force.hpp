// Independent references for engine tests: brute-force completion counts and random boards.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/composition.hpp"
#include "core/rng.hpp"
#include "core/verifier.hpp"

namespace nqc::testing {

/// The completions of c by brute force over all n! permutations (n <= 9 or so).
inline std::uint64_t brute_force_completions(const Composition& c) {
  std::vector<Index> p(static_cast<std::size_t>(c.n()));
  std::iota(p.begin(), p.end(), 1);
  std::uint64_t count = 0;
  do {
    Composition s(p);
    s.excluded_difference = c.excluded_difference;
    s.excluded_sum = c.excluded_sum;
    if (extends(s, c) && verify(s).ok()) ++count;
  } while (std::next_permutation(p.begin(), p.end()));
  return count;
}

/// Adds queens to c until it holds k (at most 200 tries): each dropped on a random cell and
/// kept when c stays consistent (its excluded diagonals included).
inline void add_random_queens(Composition& c, Index k, Rng& rng) {
  const Index n = c.n();
  for (int tries = 0; tries < 200 && c.k() < k; ++tries) {
    const auto r = static_cast<std::size_t>(rng.below(static_cast<std::uint64_t>(n)));
    if (c.q[r] != 0) continue;
    c.q[r] = static_cast<Index>(rng.below(static_cast<std::uint64_t>(n))) + 1;
    if (!verify(c).ok()) c.q[r] = 0;
  }
}

/// A random consistent composition of up to k queens that need not have a completion:
/// queens dropped on random cells, kept when the composition stays consistent.
inline Composition random_consistent(Index n, Index k, Rng& rng) {
  Composition c(n);
  add_random_queens(c, k, rng);
  return c;
}

}  // namespace nqc::testing
