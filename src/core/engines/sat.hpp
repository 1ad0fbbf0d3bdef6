// Completion by a SAT solver: CaDiCaL ([CaDiCaL]; Debian's libcadical-dev) on a CNF of the
// residual board.
#pragma once

#include "core/engine.hpp"

namespace nqc {

/// Free rows up to which `sat` runs: the CNF grows with the free cells (empty 500 x 500: 29 s, 0.9 GB).
inline constexpr Index kSatMaxFree = 500;

/// The residual of `c` as CNF for CaDiCaL: a variable per free cell, exactly one per free row and
/// column (pairwise below 7 cells, else Sinz's sequential counter), at most one per diagonal.
/// SAT: solved; UNSAT: infeasible. max_nodes bounds CaDiCaL's decisions (nodes stay 0); the clock
/// and stop flag are polled by a terminator. Throws std::invalid_argument when inconsistent.
Result complete_sat(const Composition& c, Rng& rng, const Limits& limits);

}  // namespace nqc
