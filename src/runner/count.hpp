// `nqc count N` on every MPI rank: the empty board's prefixes handed out dynamically.
#pragma once

#include "core/counting.hpp"
#include "runner/session.hpp"

namespace nqc {

/// Q(n) for 1 <= n <= 64, counted by all ranks of `session`: every rank lists the same
/// QueensCounter prefixes of queens_prefix_depth(n) rows and takes them one at a time from a
/// WorkCounter; counts and nodes are summed over ranks, the same for any number of ranks.
/// Limits apply per rank (max_nodes to its placements, listing included; the time limit to its
/// clock): the sum is then a lower bound, and `limit` names a limit that stopped some rank.
/// Collective: call on all ranks.
CountResult count_queens_on_ranks(Index n, const Limits& limits, const MpiSession& session);

}  // namespace nqc
