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
  /* E from z gives the paper's backtrack shares (about 61% without one at n = 1000); recounted, 98%. */               \
  X(A, bool, damage_at_z, true, 0, 1,                                                                                  \
    "minimum-damage rule on the damage E counted at z by block 4 (true) or recounted after every placement "           \
    "(false)")                                                                                                         \
  /* The author's reading of block 5 (docs/engines.md); false: nqc 0.1's, 1.4e-4 false negatives at n = 200. */        \
  X(A, bool, first_move_sweep, true, 0, 1,                                                                             \
    "the first queen of every descent sweeps block 4's ranking of the rows and each row's free cells, "                \
    "repeat_bound + 1 descents from each (false: every descent starts with the minimum-risk rule)")                    \
  /* false, as the author's code: 9 of 20000 cases at n = 50 not completed (none with true). */                        \
  X(A, bool, sweep_resumes, true, 0, 1,                                                                                \
    "a later block-5 session at an unchanged z goes on with the sweep where the last one stopped (false: "             \
    "it starts over at the first ranked row, as the author's code does)")                                              \
  /* Not a backtrack (no saved level restored); 100 completes the small cases the paper's descents cannot. */          \
  X(A, std::uint32_t, search_retractions, 0, 0, UINT32_MAX,                                                            \
    "rows that a descent may take back depth-first after a dead end (not in the paper: 0)")                            \
  /* The matrix is square: a dead column dooms a greedy descent anyway; this only stops it earlier. */                 \
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

/// Second and third base levels as numbers of placed queens: n - round(b2(n)), n - round(b3(n)),
/// clipped to 0..n, where b2, b3 are the free rows left there: the paper's cubic regressions in
/// u = log10(n), one pair for n < 30000 and one for n >= 30000 ([Grigoryan]; [GrigoryanCode]);
/// meaningful for n >= 50. n = 1000 gives 804 and 900, n = 10^6 gives 998821 and 999453.
Index grigoryan_level2(Index n);
Index grigoryan_level3(Index n);

/// The paper's algorithm (blocks 0-5, [Grigoryan]; docs/engines.md) on a consistent
/// composition (an inconsistent one throws std::invalid_argument). Blocks by n: n < small_n:
/// blocks 4-5; n < medium_n: blocks 2-5; else from block 1 when k < level2, block 2 when
/// k < level3, else block 4. Never `infeasible`: spent budgets give gave_up with
/// "grigoryan_limits" (the paper's "no completion"); Limits give max_nodes, time_limit, stop.
/// Counters: backtracks = returns to x, y or z (a restart is one); nodes = queens put on the
/// board in all blocks; placed_random = queens of blocks 1 and 3 in the solution;
/// placed_search = block 5's; restarts = attempts after the first. Memory O(n) bits plus
/// O(f^2) for the reduced matrix of f <= n - level2 rows.
Result complete_grigoryan(const Composition& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params = {});
/// The same in the composition's own memory (the solution is returned in it).
Result complete_grigoryan(Composition&& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params = {});

}  // namespace nqc
