// Complete search on machine words for residual boards of up to 256 free columns: the
// search of `exact` (minimum remaining values, forward checking on rows and columns,
// randomized restarts) with each free row's free cells kept as a bit set over the free
// columns, so that a placement updates every other row with a few word operations.
#pragma once

#include <cstdint>

#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/limit_watch.hpp"
#include "core/param_spec.hpp"

namespace nqc {

/// Free columns (equally, free rows) up to which the word search runs: 2 words of 64.
inline constexpr Index kBitboardMaxFree = 128;

/// Parameters of complete_bitboard, one row each: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP)
/// (core/param_spec.hpp).
#define NQC_BITBOARD_PARAMS(X, A)                                                                                      \
  /* Random order took fewer nodes and 30-40% less time near CSPLib prob079's phase transition                         \
     (n = 14..18, d = n - 2, 20 instances each). */                                                                    \
  X(A, bool, least_damage, false, 0, 1,                                                                                \
    "order of a row's candidate cells: least damage first (the free cells the queen would take from the open "         \
    "rows, [Grigoryan]'s minimum-damage rule, O(f) words per candidate), or random (false; ascending in counting)")       \
  /* Near CSPLib prob079's phase transition: 10-25% less time on the proofs (n = 14..20, 20 instances each). */       \
  X(A, bool, column_singles, true, 0, 1,                                                                              \
    "branch on a free column with one candidate cell left (one child), or two when the row of fewest cells has "      \
    "more, before that row (false: rows only, as exact)")                                                             \
  /* Restarts repeat work that an infeasibility proof must do anyway: unbounded Luby restarts made                      \
     the proofs near CSPLib prob079's phase transition 6-21x slower (n = 14..21). The first 1024 nodes with Luby      \
     budgets cost a proof little and still cut completable instances' tails (n = 19, d = 14: 1.4 ms against 3.1 ms    \
     without restarts); BENCHMARKS.md, "Complete search". */                                                           \
  NQC_LUBY_PARAMS(X, A, 1024, 0)

/// The parameters of complete_bitboard (NQC_BITBOARD_PARAMS).
struct BitboardParams {
  NQC_BITBOARD_PARAMS(NQC_PARAM_FIELD, _)
};

/// The residual of composition `c` (its free rows x free columns; the diagonals its queens
/// close and those it excludes, CSPLib prob079) searched on words: one bit set per free row
/// (its free cells) in W = 1 (f <= 64) or 2 64-bit words, the bits board columns when
/// n <= 64 W (a queen's lines in another row are shifts of its bit) and else the free columns
/// in order (a queen's diagonals found through a map of board columns: 4n bytes up to
/// n = 2^24, a binary search beyond), after an O(n) scan. A node picks the
/// open row with the fewest free cells (ties at random), tries its cells (least damage first,
/// ties at random), and a placement clears the queen's column and two diagonals in every open
/// row (three bits each, from the rows' distances) and fails at once when an open row or a
/// free column is left without a free cell (forward checking); a free column left with one
/// (or, when the row has more, two) candidate cells is branched on first (column_singles).
/// Randomized restarts with node budgets luby_budget ((2f + 256) * Luby(i)) for the first
/// luby_restart_nodes [1024] nodes, then one run to the end (restart_budget): complete, so
/// `infeasible` is a proof.
/// Requires f <= kBitboardMaxFree (throws std::invalid_argument otherwise, and for an
/// inconsistent composition). Counters: nodes = placements tried, backtracks = placements
/// taken back, restarts, placed_search.
Result complete_bitboard(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params = {});

/// The completions of `c` counted by the same search (no restarts, ascending column order),
/// for f <= kBitboardMaxFree.
CountResult count_bitboard(const Composition& c, const Limits& limits);

}  // namespace nqc
