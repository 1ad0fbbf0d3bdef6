// `exact`'s search on machine words: a placement updates every other row in a few word operations.
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
#define NQC_BITBOARD_PARAMS(X, A)                                                                                   \
  /* Random order: 30-40% less time near CSPLib prob079's phase transition. */                                      \
  X(A, bool, least_damage, false, 0, 1,                                                                             \
    "order of a row's candidate cells: least damage first (the free cells the queen would take from the open "      \
    "rows, [Grigoryan]'s minimum-damage rule, O(f) words per candidate), or random (false; ascending in counting)") \
  /* 20-40% off the proofs near CSPLib prob079's phase transition (BENCHMARKS.md). */                               \
  X(A, bool, column_branching, true, 0, 1,                                                                          \
    "branch on the free column with the fewest candidate cells when it has fewer (and fewer than 8) than the row "  \
    "of fewest cells (false: rows only, as exact)")                                                                 \
  /* One run was as fast or faster near prob079's phase transition and on derived compositions (BENCHMARKS.md). */  \
  NQC_LUBY_PARAMS(X, A, 0, 0)

/// The parameters of complete_bitboard (NQC_BITBOARD_PARAMS).
struct BitboardParams {
  NQC_BITBOARD_PARAMS(NQC_PARAM_FIELD, _)
};

/// The residual of composition `c` (excluded diagonals included) searched on words: each free
/// row's free cells a bit set of W = 1 (f <= 64) or 2 words, over board columns when n <= 64 W
/// (a queen's lines in another row are shifts of its bit), else over the free columns. A node
/// branches on the line of fewest candidates (the open row of fewest free cells, or a free
/// column with fewer: column_branching), cells in random order (least_damage: least damage
/// first); forward checking on rows and columns. Luby restarts for the first
/// luby_restart_nodes nodes, then one run to the end: complete, `infeasible` is a proof.
/// Throws std::invalid_argument for f > kBitboardMaxFree or an inconsistent composition.
/// Counters: nodes = placements tried, backtracks = placements taken back, restarts, placed_search.
Result complete_bitboard(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params = {});

/// The completions of `c` counted by the same search (no restarts, ascending column order),
/// for f <= kBitboardMaxFree.
CountResult count_bitboard(const Composition& c, const Limits& limits);

}  // namespace nqc
