// Completion by a SAT solver: CaDiCaL ([CaDiCaL]; Debian's libcadical-dev) on a CNF of the
// residual board.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows up to which the engine `sat` runs: the CNF grows with the free cells (up to
/// f^2). Empty boards, one core: f = 100 1.0 s and 51 MB, 200 20 s and 180 MB, 500 29 s and
/// 0.9 GB (f = 1000 would take some 4 GB).
inline constexpr Index kSatMaxFree = 500;

/// The residual of composition `c` (its free cells: not attacked by its queens, not on a
/// diagonal it excludes) as CNF, solved by CaDiCaL, the answer decoded and returned:
///   - one variable per free cell;
///   - every free row and every free column: at least one queen (one clause) and at most one
///     (pairwise below 7 cells, else Sinz's sequential counter);
///   - every diagonal of either direction through two or more free cells: at most one.
/// The composition's queens and excluded diagonals enter as the cells left out. SAT gives
/// `solved` (the solution is the composition plus the decoded queens); UNSAT gives
/// `infeasible`, the only way this engine proves anything; a limit gives gave_up: max_nodes
/// bounds CaDiCaL's decisions (its API reports no counts: nodes stay 0), the time limit and
/// the stop flag are polled by a CaDiCaL terminator. An open row or column without a free cell is UNSAT at
/// once (no solver call). O(n) to find the free cells; the CNF is O(free cells) clauses.
/// Throws std::invalid_argument for an inconsistent composition.
Result complete_sat(const Composition& c, Rng& rng, const Limits& limits);

}  // namespace nqc
