// The default engine: random fill, then complete search on the residual.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows at which `auto` stops filling at random and searches: max(32, 15 n^(1/3)).
Index auto_residual_rows(Index n);

/// `auto`: first min-conflicts (complete_minconflicts, 3 tries at most); when that gives up,
/// fills the composition at random (random_fill) down to auto_residual_rows(n) free
/// rows, then runs complete_exact on the residual with a node budget of 64 f + 4096; a
/// residual that has no completion, or exceeds its budget, is thrown away and refilled, up to
/// 8 times; then complete_exact runs on the composition itself, so that `auto` is complete:
/// it proves infeasibility when there is no completion. Compositions with at most
/// auto_residual_rows(n) free rows skip the random fill.
Result complete_auto(const Composition& composition, Rng& rng, const Limits& limits);

}  // namespace nqc
