// The default engine: random fill, then complete search on the residual.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows at which `auto` stops filling at random and searches: max(32, 15 n^(1/3)).
Index auto_residual_rows(Index n);

/// Board size from which `auto` fills at random before anything else (see complete_auto).
inline constexpr Index kFillFirstN = 1 << 17;

/// `auto`. From n = kFillFirstN on, everything happens in the composition's own memory
/// (O(n) bits of line sets beside it; min-conflicts, which keeps 48 bytes per row, is left
/// out): with at most auto_residual_rows(n) free rows, complete_exact's search on the
/// composition itself (complete: it proves infeasibility, e.g. the paper's challenge); with
/// more, rounds r = 0, 1, ... of 8 random fills in place (RandomFill) down to that many free
/// rows, each followed by the search on the residual with (64 f + 4096) * 8^r nodes: linear
/// in n in practice, but not complete (a composition without completion and with many free
/// rows runs to the caller's limits). Below kFillFirstN a portfolio in rounds r = 0, 1, 2, ...:
/// min-conflicts (complete_minconflicts) with 3 * 2^r tries; in round 0 only, for
/// compositions with more than auto_residual_rows(n) free rows, up to 8 random fills
/// (random_fill) down to that many free rows, each followed by complete_exact on the
/// residual with 64 f + 4096 nodes; then
/// complete_exact on the composition itself with (4 f + 1024) * 8^r nodes. The exact budget
/// grows without bound, so `auto` is complete there: it proves infeasibility when there is
/// no completion. `backtracks` are exact's; `restarts` all thrown-away tries and fills.
/// The rvalue overload returns the solution in the composition's own memory: at n = 10^9 the
/// call needs at most about 4.6 bytes per row beside the composition's 4 (the free columns'
/// list and the line sets; measured 8.6 GB in all, BENCHMARKS.md).
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits);
Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits);

}  // namespace nqc
