// `nqc count N` on every MPI rank: the empty board's prefixes handed out dynamically.
#pragma once

#include "core/counting.hpp"
#include "runner/session.hpp"

namespace nqc {

/// Q(n) for 1 <= n <= 64, counted by all ranks of `session` (one rank, or none started by
/// mpirun, counts alone): every rank lists the same QueensCounter prefixes of
/// queens_prefix_depth(n) rows, takes them one at a time from a WorkCounter (the runner's
/// shared counter, so a rank that drew cheap prefixes takes more), and the counts and nodes
/// are summed over ranks. The result is the same for any number of ranks, on every rank;
/// only the time differs. Limits apply per rank: max_nodes to each rank's placements
/// (listing included), the time limit to each rank's clock. A rank stops taking prefixes
/// once a limit stops it; the sum is then a lower bound, and `limit` names a limit that
/// stopped some rank. Collective: call on all ranks.
CountResult count_queens_on_ranks(Index n, const Limits& limits, const MpiSession& session);

}  // namespace nqc
