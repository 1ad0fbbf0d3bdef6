// Complete search for n-queens completion over the reduced board of free rows x free columns.
#pragma once

#include <cstdint>

#include "core/engine.hpp"

namespace nqc {

/// Depth-first search with the minimum-remaining-values row choice (000_*'s "minimum risk"
/// rule), least-damage value order (000_*'s "minimum damage": a cell's damage is the number
/// of free cells on its column and its two diagonals) and forward checking (a free row or a
/// free column left with no free cell fails the placement at once). Ties are broken with
/// `rng`. It works on the reduced board only, so a composition with f free rows costs
/// O(n + f^2) to set up and O(f) per placement; it keeps per-row, per-column and
/// per-diagonal free-cell counts and restores them on backtrack by recounting, with no trail.
/// Outcome: solved, infeasible (only after exhausting the space), or gave_up at a limit.
Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits,
                      Counters counters = {});

/// Counts the completions of a consistent composition (Q(n) for the empty board) by the same
/// search without stopping at the first solution. `gave_up` is set when a limit stopped it,
/// and then the count is a lower bound.
struct CountResult {
  std::uint64_t completions = 0;
  std::uint64_t nodes = 0;
  bool gave_up = false;
};
CountResult count_completions(const Composition& composition, const Limits& limits);

}  // namespace nqc
