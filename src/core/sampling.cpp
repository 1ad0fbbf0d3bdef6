#include "core/sampling.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/engines/auto.hpp"
#include "core/engines/minconflicts.hpp"
#include "core/verifier.hpp"

namespace nqc {

Composition random_solution(Index n, Rng& rng) {
  if (n < 1) throw std::invalid_argument("board size n must be >= 1, got " + std::to_string(n));
  if (n == 2 || n == 3) throw std::invalid_argument("no solution exists for n = " + std::to_string(n));
  // The generator is fixed, whatever `auto` becomes (every case of every experiment is derived
  // from these solutions): from n = fill_first_n on, auto's fill in place and the search on its
  // residual; below, min-conflicts with 3 tries (what was then auto's first round),
  // then auto should it fail. Both with AutoParams' defaults: changing one changes the cases.
  Result r;
  if (n < AutoParams{}.fill_first_n) {
    MinConflictsParams mc;
    mc.max_restarts = 2;
    r = complete_minconflicts(Composition(n), rng, Limits{}, mc);
  }
  if (r.outcome != Outcome::solved) r = complete_auto(Composition(n), rng, Limits{});
  if (r.outcome != Outcome::solved || !is_solution(r.solution))
    throw std::logic_error("bug: auto engine returned no verified solution for the empty board, n = " +
                           std::to_string(n));
  return std::move(r.solution);
}

Index draw_k(Index n, const KRange& range, Rng& rng) {
  const std::int64_t hi = std::min<std::int64_t>(range.max < 0 ? n - 1 : range.max, n - 1);
  const std::int64_t lo = std::min<std::int64_t>(std::max<std::int64_t>(range.min, 0), hi);
  if (hi <= 0) return 0;
  return static_cast<Index>(rng.between(lo, hi));
}

Composition derive_composition(const Composition& solution, Index k, Rng& rng) {
  return derive_composition(Composition(solution.q), k, rng);
}

Composition derive_composition(Composition&& solution, Index k, Rng& rng) {
  const Index n = solution.n();
  if (k < 0 || k > n)
    throw std::invalid_argument("composition size k = " + std::to_string(k) + " is outside 0.." + std::to_string(n));
  Composition c = std::move(solution);
  std::int64_t needed = k;
  for (Index i = 0; i < n; ++i) {
    // Keep row i with probability needed / (rows left); no draw once k rows are kept.
    if (needed > 0 && static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(n - i))) < needed)
      --needed;
    else
      c.q[static_cast<std::size_t>(i)] = 0;
  }
  return c;
}

}  // namespace nqc
