// Seeded random solutions and the compositions derived from them ([Grigoryan]'s experiment design).
#pragma once

#include <cstdint>

#include "core/composition.hpp"
#include "core/rng.hpp"

namespace nqc {

/// A random solution for board size n (min-conflicts, else `auto`, on the empty board),
/// verified; a pure function of the rng state, not uniform over all solutions. n = 1 gives {1}.
/// Throws std::invalid_argument for n < 1 and n = 2, 3, std::logic_error on a failed verification.
Composition random_solution(Index n, Rng& rng);

/// How the size k of a derived composition is drawn. The paper's "arbitrary size" is
/// uniform on 1..n-1 (min = 1, max = n - 1).
struct KRange {
  std::int64_t min = 1;   ///< smallest k, >= 0
  std::int64_t max = -1;  ///< largest k; -1 means n - 1
};

/// Draws k uniformly from `range`, clipped to 0..n-1 (so n = 1 gives k = 0).
Index draw_k(Index n, const KRange& range, Rng& rng);

/// Keeps the queens of `solution` in k rows chosen uniformly at random (all k-subsets
/// equally likely: selection sampling, [Knuth-TAOCP2] 3.4.2, Algorithm S) and empties the other
/// rows. The result is consistent and has at least one completion, `solution`.
/// Requires 0 <= k <= n; throws std::invalid_argument otherwise.
Composition derive_composition(const Composition& solution, Index k, Rng& rng);
/// The same composition from the same draws, made in the solution's own memory (its other
/// rows emptied): no second n-row array, for large n.
Composition derive_composition(Composition&& solution, Index k, Rng& rng);

}  // namespace nqc
