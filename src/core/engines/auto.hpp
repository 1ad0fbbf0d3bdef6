// The default engine: random fill, then complete search on the residual.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows at which `auto` stops filling at random and searches: max(32, 15 n^(1/3)).
Index auto_residual_rows(Index n);

/// `auto`: a portfolio in rounds r = 0, 1, 2, ...: min-conflicts (complete_minconflicts)
/// with 3 * 2^r tries; in round 0 only, for compositions with more than
/// auto_residual_rows(n) free rows, up to 8 random fills (random_fill) down to that many free
/// rows, each followed by complete_exact on the residual with 64 f + 4096 nodes; then
/// complete_exact on the composition itself with (4 f + 1024) * 8^r nodes. The exact budget
/// grows without bound, so `auto` is complete: it proves infeasibility when there is no
/// completion. `backtracks` are exact's; `restarts` all thrown-away tries and fills.
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits);

}  // namespace nqc
