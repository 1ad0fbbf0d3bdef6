// Complete search for n-queens completion over the reduced board of free rows x free columns.
#pragma once

#include <cstdint>

#include "core/counting.hpp"
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

/// count_completions (core/counting.hpp) for boards too large for its mask counter: the same
/// search as complete_exact without stopping at the first solution and without restarts.
/// Requires a consistent composition.
CountResult count_completions_reduced(const Composition& composition, const Limits& limits);

}  // namespace nqc
