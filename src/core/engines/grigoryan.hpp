// The paper's own algorithm: E. Grigoryan, "Linear algorithm for solution n-Queens Completion
// problem" (000_*), blocks 0-5 as recovered in ../shared/paper-facts.md.
#pragma once

#include <cstdint>

#include "core/engine.hpp"

namespace nqc {

/// Every parameter of the algorithm, with the paper's defaults (paper-facts.md, "Blocks of the
/// algorithm" and "Limits"). Counts of backtracks are returns to a saved level (x, y or z).
struct GrigoryanParams {
  /// Returns to a saved level allowed in one attempt; the next one ends the attempt (000_*:
  /// "allowing the Back Tracking procedure to be performed up to 1000 times").
  std::uint32_t backtracks_per_attempt = 1000;
  /// Attempts after the first before the composition is declared to have no completion. The
  /// arXiv text says 3; the author's later code uses 10. Default: the paper's 3.
  std::uint32_t restarts = 3;
  /// Block 3 (rand & rand) failures from one restore point y before going back to block 1
  /// (or ending the attempt when the run did not start at block 1).
  std::uint32_t block3_retries = 5;
  /// Returns to z in one block-5 session before a run that started at block 1 or 2 goes back
  /// to block 3 (n >= small_n).
  std::uint32_t block5_backtracks = 100;
  /// The same for n < small_n (only blocks 4-5 run there, so it equals the attempt budget).
  std::uint32_t block5_backtracks_small = 1000;
  /// Returns to z in one block-5 session before a dead end first tries the row's next cells
  /// (look-ahead), n >= small_n.
  std::uint32_t repeat_bound = 5;
  /// The same for n < small_n.
  std::uint32_t repeat_bound_small = 25;
  /// n < small_n: only the final stage (blocks 4-5) runs.
  Index small_n = 50;
  /// small_n <= n < medium_n: blocks 2-5; n >= medium_n: from block 1, 2 or 4 by k.
  Index medium_n = 100;
  /// Minimum-risk rule: a tie for the fewest free cells is broken at random among the first
  /// this-many tied rows (000_*, step 90: "one of the first three rows is randomly selected").
  std::uint32_t risk_ties = 3;
  /// Minimum-damage rule: a tie for the lowest damage among the first this-many cells is
  /// broken at random ("a tie of the lowest two").
  std::uint32_t damage_ties = 2;
  /// Minimum-damage rule on the damage E counted at z by block 4 (true) or recounted after
  /// every placement (false). Block 4 is where the paper counts the free cells per diagonal
  /// and column; with E from z the backtrack distribution at n = 1000 and 5000 is the
  /// paper's (about 61% without backtrack), with E recounted it is about 98%.
  bool damage_at_z = true;
  /// Rows that one block-5 descent may take back depth-first ("try the row's next cell", then
  /// the previous row's) once repeat_bound returns to z have failed in the session; 0 keeps
  /// the retries inside the failing row. Not a backtrack (no saved level is restored). Not a
  /// parameter of the paper: with 0, 6% of derived compositions at n = 10 and 0.5% at n = 100
  /// end without completion, against the paper's < 1e-4; with 100 (and lookahead_columns),
  /// 0-3 per 10^4 for n = 8 ... 1000.
  std::uint32_t search_retractions = 100;
  /// The look-ahead also fails a placement that leaves an open column without a free cell.
  /// The paper's text checks rows only; the reduced matrix is square, so such a column dooms
  /// the descent anyway: the check changes no descent's success (the backtrack shares stay
  /// the same) and only finds the dead end where trying the next cell can still help, which
  /// halves the false negatives left by row checks alone.
  bool lookahead_columns = true;
  /// Base levels as numbers of placed queens; negative: the paper's regressions
  /// grigoryan_level2(n), grigoryan_level3(n).
  std::int64_t level2 = -1;
  std::int64_t level3 = -1;
  /// false (the paper's text): block 3 runs rand & rand up to level3. true: it stops at level2
  /// as the author's MATLAB code does, so block 3 adds no queen after block 1 and the final
  /// stage starts with n - level2 free rows.
  bool block3_stops_at_level2 = false;
};

/// Free rows b2(n), b3(n) left at the second and third base levels: the paper's cubic
/// regressions in u = log10(n), one pair for n < 30000 and one for n >= 30000 (paper-facts.md,
/// "Base levels"). Defined for n >= 1; meaningful for n >= 50.
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
///   Block 5: minimum-risk row, minimum-damage cell (E as counted at z), look-ahead (any
///            remaining row or column without a free cell is a dead end: return to z; after
///            repeat_bound returns, first try the row's next cell, then earlier rows' next
///            cells, up to search_retractions rows); after block5_backtracks returns to z, back
///            to block 3 (runs started at block 4 go on to the attempt's budget).
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

}  // namespace nqc
