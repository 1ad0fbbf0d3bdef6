// `nqc count N` on every MPI rank: the empty board's prefixes handed out dynamically.
#pragma once

#include "core/counting.hpp"
#include "runner/session.hpp"

namespace nqc {

/// Q(n) for 1 <= n <= 64, its prefixes taken from a WorkCounter by all ranks of `session`.
/// Limits apply per rank (the sum is then a lower bound; `limit` names one). Collective.
CountResult count_queens_on_ranks(Index n, const Limits& limits, const MpiSession& session);

}  // namespace nqc
