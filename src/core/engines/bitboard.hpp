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
#define NQC_BITBOARD_PARAMS(X, A)                                                                                     \
  /* Random order took fewer nodes and 30-40% less time near CSPLib prob079's phase transition                        \
     (n = 14..18, d = n - 2, 20 instances each). */                                                                   \
  X(A, bool, least_damage, false, 0, 1,                                                                               \
    "order of a row's candidate cells: least damage first (the free cells the queen would take from the open "        \
    "rows, [Grigoryan]'s minimum-damage rule, O(f) words per candidate), or random (false; ascending in counting)")   \
  /* Near CSPLib prob079's phase transition: columns of 1 or 2 candidates took 10-25% of the time                     \
     off the proofs, and columns of up to 7 a further 10-15% (n = 14..20, BENCHMARKS.md). */                          \
  X(A, bool, column_branching, true, 0, 1,                                                                            \
    "branch on the free column with the fewest candidate cells when it has fewer (and fewer than 8) than the row "    \
    "of fewest cells (false: rows only, as exact)")                                                                   \
  /* Restarts repeat work that an infeasibility proof must do anyway, and no longer paid on completable boards:       \
     near CSPLib prob079's phase transition (n = 14..20, 100 instances each, 30-88% completable) a first phase of     \
     1024 nodes with Luby budgets cost 0-25% over one run, 4096 nodes up to 2x; on derived compositions (n = 20..128, \
     1000 each) one run was as fast or faster in the mean and the 90% (BENCHMARKS.md, "Complete search"). `auto`      \
     restarts it anyway, with budgets growing by round. */                                                            \
  NQC_LUBY_PARAMS(X, A, 0, 0)

/// The parameters of complete_bitboard (NQC_BITBOARD_PARAMS).
struct BitboardParams {
  NQC_BITBOARD_PARAMS(NQC_PARAM_FIELD, _)
};

/// The residual of composition `c` (its free rows x free columns; the diagonals its queens
/// close and those it excludes, CSPLib prob079) searched on words: one bit set per free row
/// (its free cells) in W = 1 (f <= 64) or 2 64-bit words, the bits board columns when
/// n <= 64 W (a queen's lines in another row are shifts of its bit) and else the free columns
/// in order (a queen's diagonals found through a map of board columns: 4n bytes up to
/// n = 2^24, a binary search beyond), after an O(n) scan. A node picks the line of fewest
/// candidates: the open row with the fewest free cells (ties at random), or a free column
/// with fewer (up to 7; column_branching), and tries its cells in random order (a row's least
/// damage first with least_damage); a placement clears the queen's column and two diagonals
/// in every open row (three bits each, from the rows' distances) and fails at once when an
/// open row or a free column is left without a free cell (forward checking).
/// Randomized restarts (ties and candidates shuffled) with node budgets luby_budget
/// ((2f + 256) * Luby(i)) for the first luby_restart_nodes [0] nodes, then one run to the end
/// (restart_budget; the first tied row, candidates rotated by a random offset): complete, so
/// `infeasible` is a proof.
/// Requires f <= kBitboardMaxFree (throws std::invalid_argument otherwise, and for an
/// inconsistent composition). Counters: nodes = placements tried, backtracks = placements
/// taken back, restarts, placed_search.
Result complete_bitboard(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params = {});

/// The completions of `c` counted by the same search (no restarts, ascending column order),
/// for f <= kBitboardMaxFree.
CountResult count_bitboard(const Composition& c, const Limits& limits);

}  // namespace nqc
