// The paper's own algorithm, [Grigoryan] (docs/REFERENCES.md): blocks 0-5 as its figures draw
// them, with the limits its text leaves open taken from the author's code [GrigoryanCode].
#pragma once

#include <cstdint>

#include "core/engine.hpp"
#include "core/param_spec.hpp"

namespace nqc {

/// Every parameter of the algorithm, with the paper's defaults ([Grigoryan]; the limits as in
/// [GrigoryanCode]), one row each: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP)
/// (core/param_spec.hpp). Counts of backtracks are returns to a saved level (x, y or z).
#define NQC_GRIGORYAN_PARAMS(X, A)                                                                                     \
  /* [Grigoryan]: "allowing the Back Tracking procedure to be performed up to 1000 times". */                          \
  X(A, std::uint32_t, backtracks_per_attempt, 1000, 0, UINT32_MAX,                                                     \
    "returns to a saved level (x, y or z) allowed in one attempt; the next one ends the attempt")                      \
  /* The arXiv text says 3; the author's later code uses 10. */                                                        \
  X(A, std::uint32_t, restarts, 3, 0, UINT32_MAX,                                                                      \
    "attempts after the first before the composition is given up (the paper: 3, the author's code: 10)")               \
  X(A, std::uint32_t, block3_retries, 5, 0, UINT32_MAX,                                                                \
    "block 3 (rand & rand) failures from one restore point y before going back to block 1 (or ending the "             \
    "attempt when the run did not start at block 1)")                                                                  \
  X(A, std::uint32_t, block5_backtracks, 100, 0, UINT32_MAX,                                                           \
    "returns to z in one block-5 session before a run that started at block 1 or 2 goes back to block 3 "              \
    "(n >= small_n)")                                                                                                  \
  /* Only blocks 4-5 run below small_n, so it equals the attempt budget. */                                            \
  X(A, std::uint32_t, block5_backtracks_small, 1000, 0, UINT32_MAX, "block5_backtracks for n < small_n")               \
  X(A, std::uint32_t, repeat_bound, 5, 0, UINT32_MAX,                                                                  \
    "returns to z in one block-5 session before a dead end first tries the row's next cells (look-ahead), "            \
    "n >= small_n")                                                                                                    \
  X(A, std::uint32_t, repeat_bound_small, 25, 0, UINT32_MAX, "repeat_bound for n < small_n")                           \
  X(A, Index, small_n, 50, 1, INT32_MAX, "board size below which only the final stage (blocks 4-5) runs")              \
  X(A, Index, medium_n, 100, 1, INT32_MAX,                                                                             \
    "board size from which a run starts at block 1, 2 or 4 by k (small_n <= n < medium_n: blocks 2-5; any order: a "   \
    "medium_n below small_n acts as small_n)")                                                                         \
  /* [Grigoryan], step 90: "one of the first three rows is randomly selected". */                                      \
  X(A, std::uint32_t, risk_ties, 3, 0, UINT32_MAX,                                                                     \
    "minimum-risk rule: a tie for the fewest free cells is broken at random among the first this-many tied rows")      \
  /* The paper: "a tie of the lowest two". */                                                                          \
  X(A, std::uint32_t, damage_ties, 2, 0, UINT32_MAX,                                                                   \
    "minimum-damage rule: a tie for the lowest damage among the first this-many cells is broken at random")            \
  /* Block 4 is where the paper counts the free cells per diagonal and column; with E from z the                       \
     backtrack distribution at n = 1000 and 5000 is the paper's (about 61% without backtrack), with                    \
     E recounted it is about 98%. */                                                                                   \
  X(A, bool, damage_at_z, true, 0, 1,                                                                                  \
    "minimum-damage rule on the damage E counted at z by block 4 (true) or recounted after every placement "           \
    "(false)")                                                                                                         \
  /* Block 5's "restore z and retry (up to repeatBound times), then try the row's next cell" read as                   \
     the author's code does (see "Blocks 4-5: the paper, the author's code and nqc" below). false:                     \
     nqc 0.1's reading, where every descent starts with the minimum-risk rule (with                                    \
     search_retractions = 100 and lookahead_columns it gave 1.4e-4 false negatives at n = 200                          \
     instead of the paper's < 1e-5; the greedy descents from the minimum-risk start are nearly                         \
     deterministic). */                                                                                                \
  X(A, bool, first_move_sweep, true, 0, 1,                                                                             \
    "the first queen of every descent sweeps block 4's ranking of the rows and each row's free cells, "                \
    "repeat_bound + 1 descents from each (false: every descent starts with the minimum-risk rule)")                    \
  /* When blocks 1 and 3 placed no queen, z is the composition itself, ranked as before: then a later                  \
     block-5 session at it (after a return to block 3, which places nothing when k >= level3 at                        \
     50 <= n < 100, or after a restart) goes on with the sweep where the last one stopped. false:                      \
     every session starts over at the first ranked row, as the author's code does, which never gets                    \
     past the first ~100 / 6 first queens between returns to block 3 (9 of 20000 cases at n = 50 not                   \
     completed, none with true) nor past the first ~1000 / 26 in an attempt at n < 50. */                              \
  X(A, bool, sweep_resumes, true, 0, 1,                                                                                \
    "a later block-5 session at an unchanged z goes on with the sweep where the last one stopped (false: "             \
    "it starts over at the first ranked row, as the author's code does)")                                              \
  /* "Try the row's next cell" read as the failing row's, then the previous row's, ...: in the last                    \
     of the repeat_bound + 1 descents from each first queen (first_move_sweep), or in every descent                    \
     after repeat_bound returns in a session (without it). Not a backtrack (no saved level is                          \
     restored). Not in the paper or the author's code: 0 is the paper's algorithm, whose greedy                        \
     descents cannot complete some small compositions from any first queen (n < 50); 100 completes                     \
     them. */                                                                                                          \
  X(A, std::uint32_t, search_retractions, 0, 0, UINT32_MAX,                                                            \
    "rows that a descent may take back depth-first after a dead end (not in the paper: 0)")                            \
  /* The paper's text and the author's code check rows only; the reduced matrix is square, so such a                   \
     column dooms a greedy descent anyway: the check changes no greedy descent's success, only how                     \
     early it stops (and with search_retractions, where the search resumes). */                                        \
  X(A, bool, lookahead_columns, false, 0, 1,                                                                           \
    "the look-ahead also fails a placement that leaves an open column without a free cell")                            \
  X(A, std::int64_t, level2, -1, -1, INT32_MAX,                                                                        \
    "second base level as a number of placed queens; -1: the paper's regression grigoryan_level2(n)")                  \
  X(A, std::int64_t, level3, -1, -1, INT32_MAX,                                                                        \
    "third base level as a number of placed queens; -1: the paper's regression grigoryan_level3(n) (any order: below " \
    "level2, block 3 adds no queen)")                                                                                  \
  /* true: block 3 adds no queen after block 1 and the final stage starts with n - level2 free rows. */                \
  X(A, bool, block3_stops_at_level2, false, 0, 1,                                                                      \
    "block 3 runs rand & rand up to level2, as the author's MATLAB code does (false: up to level3, the "               \
    "paper's text)")

/// The parameters of complete_grigoryan (NQC_GRIGORYAN_PARAMS: names, defaults, ranges, help).
struct GrigoryanParams {
  NQC_GRIGORYAN_PARAMS(NQC_PARAM_FIELD, _)
};

// Blocks 4-5: the paper, the author's code and nqc. "Paper" is the arXiv text
// [Grigoryan] with its block structure; "author" is the author's public MATLAB code
// [GrigoryanCode] (2020, read for facts only: its licence is CC BY-NC-SA);
// "nqc" is this engine with its defaults. Where they differ:
//  1. First queen of a descent. Paper: "restore z and retry (up to repeatBound times), then
//     try the row's next cell". Author: three nested loops: every row in block 4's ranking
//     (fewest free cells first, ties by row index), each of its free cells in column order,
//     and repeatBound + 1 descents from that first queen. nqc 0.1: every descent began with
//     the minimum-risk rule, and "next cell" meant depth-first retractions at the dead end;
//     its descents from the minimum-risk start all failed on 17 recorded cases (0 of
//     200 random descents each; the board had no completion left after the 1st-9th queen,
//     median 2-3, but the dead end came 16-32 queens deep, beyond the reach of 100
//     retractions). nqc: the author's loops (first_move_sweep).
//  2. Identical repeats. Author: a descent that breaks no tie at random is rerun
//     repeatBound + 1 times to the same dead end, each counted. nqc: counted the same, not
//     rerun (every counter and the random stream as if they had run).
//  3. End of the sweep. Paper: silent. Author and nqc: the sweep starts over (the author
//     also resets the session's count of returns to z; nqc does not). A restart at an
//     unchanged z (runs from block 4) starts the author's sweep over; nqc's goes on
//     (sweep_resumes).
//  4. Back to block 3 (runs from block 1 or 2). Paper: after 100 returns to z. Author: the
//     count is checked only after all cells of a ranked row are done (100 to ~100 + 6 x
//     cells), the return to y is not counted as a backtrack, and the sweep starts over even
//     when block 3 has no queen to place and z is unchanged (50 <= n < 100, k >= level3).
//     nqc: the 101st return goes back, it counts one backtrack, and an unchanged z resumes
//     the sweep (sweep_resumes).
//  5. Attempt budget of 1000 backtracks. Author: checked only after each ranked row. nqc:
//     at every return.
//  6. Restarts. Paper: 3. Author: 10, and a restart of a run from block 1 or 2 sets a
//     misspelt variable (activeEventInd), so it re-enters block 5 on the restored arrays.
//     nqc: 3, each from the run's start level.
//  7. Minimum-risk ties. Paper: "one of the first two or three rows". Author and nqc: among
//     the first three when three tie, the first two when two tie.
//  8. Minimum damage. Paper: the cell that closes the fewest free cells of the remaining
//     rows, a tie of the lowest two at random. Author: E = free cells on the cell's two
//     diagonals and column counted at z, decremented only on the placed queen's own
//     (thereafter closed) diagonals: E at z. nqc: E at z (damage_at_z).
//  9. Look-ahead. Paper and author: any remaining row without a free cell is a dead end.
//     nqc 0.1 also checked columns; nqc: rows (lookahead_columns = false).
// 10. Reported backtracks. Author: 1000 per restart plus the last attempt's returns. nqc:
//     every return to x, y or z, plus one per restart.

/// Free rows b2(n), b3(n) left at the second and third base levels: the paper's cubic
/// regressions in u = log10(n), one pair for n < 30000 and one for n >= 30000 ([Grigoryan];
/// [GrigoryanCode]). Defined for n >= 1; meaningful for n >= 50.
double grigoryan_b2(Index n);
double grigoryan_b3(Index n);

/// Second and third base levels as numbers of placed queens: n - round(b2), n - round(b3),
/// clipped to 0..n. n = 1000 gives 804 and 900, n = 10^6 gives 998821 and 999453.
Index grigoryan_level2(Index n);
Index grigoryan_level3(Index n);

/// The paper's algorithm on a consistent composition (an inconsistent one throws
/// std::invalid_argument). Blocks run by n: 7 <= n < 50 (and n < 7, which the paper leaves
/// undefined): only the final stage, blocks 4-5; 50 <= n < 100: blocks 2-5; n >= 100: from
/// block 1 when k < level2, block 2 when level2 <= k < level3, else block 4.
///   Block 0: control arrays of the diagonals (D1, D2), restore point x = the composition.
///   Block 1: randSet & randSet passes up to level2; a pass that places nothing returns to x.
///   Block 2: reduced matrix of free rows x free columns, restore point y.
///   Block 3: rand & rand (random free row, random free cell in it) up to level3; a chosen row
///            without free cell returns to y; the block_3_retries-th failure returns to x.
///   Block 4: free-cell counts per row, column and diagonal of the reduced matrix; a row
///            without free cell is a block-3 failure; restore point z.
///   Block 5: descents from z, each from a first queen that sweeps block 4's ranked rows
///            and their cells (repeat_bound + 1 descents from each), then minimum-risk row
///            and minimum-damage cell (E as counted at z) at every step; the look-ahead (a
///            remaining row without a free cell) ends a descent in a dead end: return to z;
///            after block5_backtracks returns, back to block 3 (runs started at block 4 go on
///            to the attempt's budget).
/// backtracks_per_attempt returns end an attempt; after `restarts` further attempts the
/// result is gave_up with limit "grigoryan_limits" (the paper's "no completion", a false
/// negative when the composition came from a solution). Never returns `infeasible`. Limits
/// give gave_up with "max_nodes", "time_limit" or "stop".
/// Counters: backtracks = returns to x, y or z (a restart is one); nodes = queens put on the
/// board in all blocks (including those later taken back); placed_random = queens of blocks 1
/// and 3 in the solution; placed_search = queens of block 5 in the solution; restarts =
/// attempts after the first. All random choices come from `rng`: same rng state, same result.
/// Memory O(n) bits for the board plus O(f^2) for the reduced matrix of f <= n - level2 rows.
Result complete_grigoryan(const Composition& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params = {});
/// The same in the composition's own memory (the solution is returned in it): no copy of the
/// board, for large n.
Result complete_grigoryan(Composition&& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params = {});

}  // namespace nqc
