// The default engine: random fill, then complete search on the residual.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows at which `auto` stops filling at random and searches: max(32, 15 n^(1/3)).
Index auto_residual_rows(Index n);

/// Board size from which `auto` fills at random before anything else (see complete_auto).
inline constexpr Index kFillFirstN = 1 << 17;

/// `auto`. From n = kFillFirstN on, for compositions with more than auto_residual_rows(n) free
/// rows, first up to 8 random fills in place (RandomFill) down to that many free rows, each
/// followed by complete_exact's search on the residual (search_residual) with 64 f + 4096
/// nodes: linear in n in practice, no copy of the composition, O(n) bits of line sets. Then
/// (and for smaller boards first) a portfolio in rounds r = 0, 1, 2, ...: min-conflicts (complete_minconflicts)
/// with 3 * 2^r tries; in round 0 only, for compositions with more than
/// auto_residual_rows(n) free rows, up to 8 random fills (random_fill) down to that many free
/// rows, each followed by complete_exact on the residual with 64 f + 4096 nodes; then
/// complete_exact on the composition itself with (4 f + 1024) * 8^r nodes. The exact budget
/// grows without bound, so `auto` is complete: it proves infeasibility when there is no
/// completion. `backtracks` are exact's; `restarts` all thrown-away tries and fills.
/// The rvalue overload works in the composition's own memory (the solution is returned in
/// it): at n = 10^9 the call needs about 1.2 bytes per row beside the composition's 4.
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits);
Result complete_auto(Composition&& composition, Rng& rng, const Limits& limits);

}  // namespace nqc
