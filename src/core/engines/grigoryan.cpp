#include "core/engines/grigoryan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/limit_watch.hpp"
#include "core/lines.hpp"
#include "core/residual_board.hpp"
#include "core/verifier.hpp"

// Interpretation notes. [Grigoryan] draws its blocks in figures that its text does not
// repeat; the block structure, the limits and what counts as a backtrack below are the paper's
// as the author's code [GrigoryanCode] confirms and completes them (docs/REFERENCES.md).
// Where both are silent, the choice is written next to the code as "Choice:" with its reason.

namespace nqc {

namespace {

// ---- Base levels ([Grigoryan]; [GrigoryanCode]) ----

double cubic(double u, double a3, double a2, double a1, double a0) { return ((a3 * u + a2) * u + a1) * u + a0; }

Index level_from(Index n, double b) {
  const auto free_rows = static_cast<std::int64_t>(std::llround(b));
  return static_cast<Index>(std::clamp<std::int64_t>(static_cast<std::int64_t>(n) - free_rows, 0, n));
}

// Blocks 4 and 5: the reduced matrix of the free rows x free columns at restore point z (a
// ResidualBoard: the list of its free cells, with incremental free counts per line), block
// 4's damage E of every cell and ranking of the rows, and the final stage's tie rules.
class FinalStage {
 public:
  /// Builds the matrix of `rows` x `cols` (both ascending board indices) from the board's
  /// closed diagonals, with block 4's counts and every cell's damage E at z. Returns false
  /// when some row has no free cell (block 4's check).
  /// Choice (GrigoryanParams::damage_at_z): block 5 ranks cells by the E counted here, not
  /// recounted after each placement. The block structure puts the counting of free cells
  /// per diagonal and column in block 4, while [Grigoryan]'s worked steps 89-91 recount only
  /// the rows; and only E from z reproduces the paper's backtrack shares (n = 1000, 10^4 cases: 60.9%
  /// without backtrack against the paper's 60.50%; recounted E gives 97.6%).
  bool build(Index n, const std::vector<Index>& rows, const std::vector<Index>& cols, const Bitset& d1_closed,
             const Bitset& d2_closed, bool check_columns) {
    board_.build(n, rows, cols, d1_closed, d2_closed, check_columns);
    const Index f = board_.free_rows();
    damage_at_z_.resize(static_cast<std::size_t>(board_.cell_count()));
    for (Index e = 0; e < board_.cell_count(); ++e) damage_at_z_[static_cast<std::size_t>(e)] = board_.damage(e);
    // Block 4's ranking of the rows: ascending free-cell count, ties in ascending row index.
    ranked_.resize(static_cast<std::size_t>(f));
    for (Index a = 0; a < f; ++a) ranked_[static_cast<std::size_t>(a)] = a;
    std::stable_sort(ranked_.begin(), ranked_.end(),
                     [this](Index x, Index y) { return board_.row_free(x) < board_.row_free(y); });
    // Block 4 checks the rows only (a dead column fails the first descent's look-ahead).
    for (Index a = 0; a < f; ++a)
      if (board_.row_free(a) == 0) return false;
    return true;
  }

  /// The rows of the reduced matrix as block 4 ranks them at z: ascending number of free
  /// cells, ties in ascending row index.
  [[nodiscard]] const std::vector<Index>& ranked_rows() const { return ranked_; }
  /// Row a's free cells at z are the cell ids [row_cells_begin(a), row_cells_end(a)), in
  /// ascending column order.
  [[nodiscard]] Index row_cells_begin(Index a) const { return board_.row_cells_begin(a); }
  [[nodiscard]] Index row_cells_end(Index a) const { return board_.row_cells_end(a); }

  [[nodiscard]] Index open_rows() const { return board_.open_rows(); }
  /// Random tie breaks drawn so far by choose_row and candidates: a descent that drew none is
  /// a function of its first queen alone.
  [[nodiscard]] std::uint64_t draws() const { return draws_; }
  [[nodiscard]] Index cell_count() const { return board_.cell_count(); }
  [[nodiscard]] Index board_row(Index e) const { return board_.board_row(board_.cell(e).a); }
  [[nodiscard]] Index board_col(Index e) const { return board_.board_col(board_.cell(e).b); }

  /// Minimum-risk rule ([Grigoryan], steps 89-91): the open row with the fewest free cells.
  /// Rows are ranked by count with ties in ascending row index (the order of the paper's listings:
  /// "7(2), 12(2), 22(2), 82(2), 88(2)"), and a tie is broken uniformly among the first
  /// min(ties, tied) rows ("one of the first three rows is randomly selected").
  Index choose_row(Rng& rng, std::uint32_t ties) {
    constexpr std::uint32_t kMaxTies = 8;
    ties = std::clamp<std::uint32_t>(ties, 1, kMaxTies);
    Index first[kMaxTies];
    std::uint32_t tied = 0;
    Index best = 0;
    for (Index a = 0; a < board_.free_rows(); ++a) {
      if (!board_.row_open(a)) continue;
      const Index v = board_.row_free(a);
      if (tied == 0 || v < best) {
        best = v;
        first[0] = a;
        tied = 1;
      } else if (v == best && tied < ties) {
        first[tied++] = a;
      }
    }
    if (tied == 1) return first[0];
    ++draws_;
    return first[rng.below(tied)];
  }

  /// Minimum-damage rule: appends the free cells of open row a to `out` as (damage, cell),
  /// lowest damage first. A cell's damage E is the free cells on its two diagonals plus those
  /// in its column (the cell itself counts on all three lines, the same offset for every
  /// cell): as counted at z by block 4 when `at_z`, else as counted now. Ties keep ascending
  /// column order, then a tie among the first min(ties, tied) cells is broken uniformly: the
  /// chosen cell moves to the front and the others keep their order (the "next cell" order).
  void candidates(Index a, Rng& rng, std::uint32_t ties, bool at_z, std::vector<std::pair<Index, Index>>& out) {
    const std::size_t first = out.size();
    for (Index e = board_.row_cells_begin(a); e < board_.row_cells_end(a); ++e) {
      if (!board_.is_free(e)) continue;
      out.emplace_back(at_z ? damage_at_z_[static_cast<std::size_t>(e)] : board_.damage(e), e);
    }
    // Rows hold a handful of free cells at this stage: insertion sort, stable, no allocation.
    for (std::size_t i = first + 1; i < out.size(); ++i)
      for (std::size_t j = i; j > first && out[j].first < out[j - 1].first; --j) std::swap(out[j], out[j - 1]);
    std::size_t tied = 1;
    while (first + tied < out.size() && tied < ties && out[first + tied].first == out[first].first) ++tied;
    if (tied > 1) {
      const auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
      ++draws_;
      const auto pick = static_cast<std::ptrdiff_t>(rng.below(tied));
      std::rotate(begin, begin + pick, begin + pick + 1);
    }
  }

  /// See ResidualBoard::place and undo: the look-ahead of block 5.
  bool place(Index e) { return board_.place(e); }
  void undo(Index e) { board_.undo(e); }

 private:
  ResidualBoard board_;
  std::vector<Index> damage_at_z_;  // block 4's E of every cell
  std::vector<Index> ranked_;       // block 4's ranking of the rows
  std::uint64_t draws_ = 0;
};

// One call of the algorithm. The full board (D1, D2 as bitmaps, the working composition and a
// trail of the rows filled since x) belongs to blocks 0, 1 and 3; blocks 4-5 work on their own
// FinalStage and write into the board only when solved.
class Grigoryan {
 public:
  // The board is the composition itself, moved in (its queens and empty rows are x).
  Grigoryan(Composition&& composition, Rng& rng, const Limits& limits, const GrigoryanParams& params)
      : board_(std::move(composition)), n_(board_.n()), rng_(rng), watch_(limits), p_(params) {}

  Result run();

 private:
  enum class Start : std::uint8_t { x, y, z };  // the saved level a run starts from
  enum class Exit : std::uint8_t { solved, back_to_block3, attempt_failed, hopeless, limit };
  enum class Step : std::uint8_t { ok, failed, limit };
  enum class Block : std::uint8_t { b1, b2, b3, b4, b5 };

  [[nodiscard]] std::size_t d1(Index r, Index c) const { return diff_line(n_, r, c); }
  [[nodiscard]] static std::size_t d2(Index r, Index c) { return sum_line(r, c); }

  // Puts a queen on (r, c) when both its diagonals are open; its column is open by
  // construction (c comes from the list of free columns).
  bool try_place(Index r, Index c) {
    const std::size_t a = d1(r, c), b = d2(r, c);
    if (d1_closed_.test(a) || d2_closed_.test(b)) return false;
    d1_closed_.set(a);
    d2_closed_.set(b);
    board_.q[static_cast<std::size_t>(r)] = c + 1;
    trail_.push_back(r);
    ++counters_.nodes;
    ++k_;
    return true;
  }

  // Takes back the queens placed after the first `mark` of the trail.
  void undo_to(std::size_t mark) {
    while (trail_.size() > mark) {
      const Index r = trail_.back();
      trail_.pop_back();
      const Index c = board_.q[static_cast<std::size_t>(r)] - 1;
      d1_closed_.reset(d1(r, c));
      d2_closed_.reset(d2(r, c));
      board_.q[static_cast<std::size_t>(r)] = 0;
      --k_;
    }
  }

  // x's free rows and free columns, ascending, into rows_ and cols_: recomputed from the
  // board (O(n), at the start and at each rare return to x) rather than kept, which saves
  // two lists of up to n entries.
  // `used`: the columns holding a queen (from close_lines at block 0).
  // With `setup` (block 0), polled: a stopped call leaves the lists incomplete.
  void collect_free_lines(const Bitset& used, SetupWatch* setup = nullptr) {
    rows_ = free_rows_of(board_, setup);
    cols_ = free_columns_of(used, n_, setup);
  }
  void restore_x() {
    undo_to(0);
    Bitset used(static_cast<std::size_t>(n_));
    for (Index r = 0; r < n_; ++r)
      if (const Index j = board_.q[static_cast<std::size_t>(r)]; j != 0) used.set(static_cast<std::size_t>(j - 1));
    collect_free_lines(used);
  }
  // Whether some free row (rows_) has no free cell on the free columns (cols_): O(f^2) at worst.
  [[nodiscard]] bool has_dead_row() const {
    for (const Index r : rows_) {
      bool free = false;
      for (const Index c : cols_)
        if (!d1_closed_.test(d1(r, c)) && !d2_closed_.test(d2(r, c))) {
          free = true;
          break;
        }
      if (!free) return true;
    }
    return false;
  }
  void save_y() {
    y_rows_ = rows_;
    y_cols_ = cols_;
    y_mark_ = trail_.size();
  }
  void restore_y() {
    undo_to(y_mark_);
    rows_ = y_rows_;
    cols_ = y_cols_;
  }

  // One return to a saved level: counted in the total and in the attempt's budget. False when
  // the budget is spent (the attempt ends).
  bool backtrack() {
    ++counters_.backtracks;
    return ++attempt_backtracks_ <= p_.backtracks_per_attempt;  // 64 bits: never wraps at UINT32_MAX
  }

  StopReason block0();
  Step block1();
  Step block3();
  enum class Descent : std::uint8_t { solved, dead_end, limit };
  Descent descend(Index first, bool search);
  Exit block5(Start start);
  Exit block5_sweep(Start start);
  void unwind();
  std::optional<Exit> block4(Start start, Block& block);
  Exit attempt(Start start);
  // The base levels and the level a run starts from, for the composition's k_input_ queens.
  Start start_level();
  bool block3_failed(Start start, Block& next);

  Composition board_;
  Index n_;
  Rng& rng_;
  LimitWatch watch_;
  const GrigoryanParams& p_;
  Counters counters_;
  StopReason hit_ = StopReason::none;  // the limit that stopped the run

  Index k_ = 0;  // queens on the board (blocks 0-3)
  Index k_input_ = 0;
  Index level2_ = 0, level3_ = 0, block3_target_ = 0;
  bool small_ = false;  // n < small_n
  Bitset d1_closed_, d2_closed_;
  std::vector<Index> trail_;  // rows filled since x, in order
  std::vector<Index> y_rows_, y_cols_;
  std::vector<Index> rows_, cols_;  // free rows and columns now (blocks 1 and 3)
  std::size_t y_mark_ = 0;
  std::uint64_t attempt_backtracks_ = 0;
  std::uint32_t block3_failures_ = 0;
  std::vector<Index> buffer_;    // block 3: positions in cols_ of the chosen row's free cells
  std::vector<Index> shuffled_;  // block 1: shuffle_bucketed's buffer

  FinalStage final_;
  std::vector<Index> sorted_rows_, sorted_cols_;
  // Block 5: one frame per row placed since z, its candidates in pool_[begin, end) as
  // (damage, cell), `next` the first untried one, `placed` the cell of its queen or -1.
  struct Frame {
    std::size_t begin, end, next;
    Index placed;
  };
  std::vector<Frame> frames_;
  std::vector<std::pair<Index, Index>> pool_;
  // Where block 5's sweep of first queens stands: index into the ranked rows, the first
  // queen's cell (-1: the row's first cell) and the descents already made from it.
  struct SweepPosition {
    std::size_t rank = 0;
    Index first = -1;
    std::uint32_t repeat = 0;
  };
  SweepPosition sweep_;
};

// Block 1, randSet & randSet ([Grigoryan]): shuffle the free rows and the free
// columns, pair them in order, place a queen wherever the pair's cell is free, and repeat
// passes until level2 queens stand; the pass that reaches level2 stops there.
// Choice: a pass that places no queen is the "dead end" of the randSet experiment in [Grigoryan]
// ("as long as such an opportunity exists"): the block fails and the run returns to x. This is
// rare: the base levels lie far below where the random phases stall (measured on the empty
// n = 1000 board: a pass first places nothing at 967 +- 8 queens, a row first loses its last
// free cell at 942 +- 11; level2 = 804, level3 = 900).
Grigoryan::Step Grigoryan::block1() {
  while (k_ < level2_) {
    // A uniform shuffle of each list (shuffle_bucketed: Fisher-Yates below 2^21 entries,
    // twice as fast from 10^7 entries on), polling the clock and the stop flag (at n = 10^8
    // the two shuffles of the first pass take a second).
    const auto stop = [&] { return (hit_ = watch_.poll()) != StopReason::none; };
    if (!shuffle_bucketed_until(rows_, rng_, shuffled_, stop) || !shuffle_bucketed_until(cols_, rng_, shuffled_, stop))
      return Step::limit;
    const std::size_t f = rows_.size();
    std::size_t kept = 0;
    bool placed = false;
    for (std::size_t i = 0; i < f; ++i) {
      // The pairs come in random order: every probe of a diagonal set, and the row's entry
      // of the board, is a cache miss at large n; prefetched kAhead pairs ahead.
      if (constexpr std::size_t kAhead = 32; i + kAhead < f) {
        const Index r = rows_[i + kAhead], c = cols_[i + kAhead];
        d1_closed_.prefetch(d1(r, c));
        d2_closed_.prefetch(d2(r, c));
        __builtin_prefetch(&board_.q[static_cast<std::size_t>(r)], 1);
      }
      if (k_ < level2_) {
        if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Step::limit;
        if (try_place(rows_[i], cols_[i])) {
          placed = true;
          continue;
        }
      }
      rows_[kept] = rows_[i];
      cols_[kept] = cols_[i];
      ++kept;
    }
    rows_.resize(kept);
    cols_.resize(kept);
    if (!placed) return Step::failed;
  }
  return Step::ok;
}

// Block 3, rand & rand: a random free row, then a random free cell in it, until the target
// level. A chosen row without a free cell fails the block ([Grigoryan], block 3).
// Choice: only the chosen row is checked, as the block draws rows blindly; a dead row it does
// not draw is caught by block 4's count.
Grigoryan::Step Grigoryan::block3() {
  while (k_ < block3_target_) {
    if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Step::limit;
    const std::size_t i = rng_.below(rows_.size());
    const Index r = rows_[i];
    buffer_.clear();
    for (std::size_t j = 0; j < cols_.size(); ++j) {
      const Index c = cols_[j];
      if (!d1_closed_.test(d1(r, c)) && !d2_closed_.test(d2(r, c))) buffer_.push_back(static_cast<Index>(j));
    }
    if (buffer_.empty()) return Step::failed;
    const auto j = static_cast<std::size_t>(buffer_[rng_.below(buffer_.size())]);
    try_place(r, cols_[j]);
    rows_[i] = rows_.back();
    rows_.pop_back();
    cols_[j] = cols_.back();
    cols_.pop_back();
  }
  return Step::ok;
}

// A failure of block 3 (or block 4's dead row, which block 4 sends back to block 3). Returns
// false when the attempt ends. Choice: failures count from the last save of y and reset when
// a z is saved (the retries bound consecutive failures to reach the final stage); the
// block3_retries-th failure goes straight back to x (one backtrack, not y then x). For a run
// that did not start at block 1, "give up" ([Grigoryan], block 3) ends the attempt, so the restarts
// still apply: the paper declares "no completion" only when the limits are spent.
bool Grigoryan::block3_failed(Start start, Block& next) {
  if (++block3_failures_ >= p_.block3_retries) {
    if (start != Start::x) return false;
    restore_x();
    next = Block::b1;
    return backtrack();
  }
  restore_y();
  next = Block::b3;
  return backtrack();
}

// One descent of block 5 from z: the queen on cell `first` (or, when first < 0, on the
// minimum-risk row's minimum-damage cell), then minimum-risk row and minimum-damage cell at
// every step until the board is full (solved) or the look-ahead finds an open row (or column)
// without a free cell (dead_end). With `search`, a dead end first tries the row's next cells,
// then earlier rows' next cells, up to search_retractions rows (the retraction reading, see
// GrigoryanParams::first_move_sweep). The queens stay on the final stage: unwind() takes them
// back.
Grigoryan::Descent Grigoryan::descend(Index first, bool search) {
  std::uint64_t retractions = 0;
  const auto push_row = [&] {
    const Index a = final_.choose_row(rng_, p_.risk_ties);
    const std::size_t begin = pool_.size();
    final_.candidates(a, rng_, p_.damage_ties, p_.damage_at_z, pool_);
    frames_.push_back({begin, pool_.size(), begin, -1});
  };
  if (first >= 0) {
    pool_.emplace_back(0, first);
    frames_.push_back({0, 1, 0, -1});
  } else {
    push_row();
  }
  for (;;) {
    Frame& top = frames_.back();
    if (top.next == top.end) {
      // The row has no untried cell left: take back the previous row's queen and try its
      // next cell.
      if (!search || frames_.size() == 1 || retractions >= p_.search_retractions) return Descent::dead_end;
      pool_.resize(top.begin);
      frames_.pop_back();
      final_.undo(frames_.back().placed);
      frames_.back().placed = -1;
      ++retractions;
      continue;
    }
    if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Descent::limit;
    const Index e = pool_[top.next++].second;
    ++counters_.nodes;
    if (final_.place(e)) {
      top.placed = e;
      if (final_.open_rows() == 0) return Descent::solved;
      push_row();
      continue;
    }
    final_.undo(e);
    if (!search) return Descent::dead_end;
  }
}

// Block 5, the final stage from z. Each dead end of a descent returns to z (one backtrack).
// After block5_backtracks returns to z, a run that started at block 1 or 2 goes back to
// block 3 (the caller restores y: one backtrack); a run that started at block 4 has no block 3
// and goes on until the attempt's budget is spent ([GrigoryanCode] restricts the limit of 100
// to runs started at block 1 or 2).
Grigoryan::Exit Grigoryan::block5(Start start) {
  if (p_.first_move_sweep) return block5_sweep(start);
  // The retraction reading: every descent starts with the minimum-risk rule; the first
  // repeat_bound dead ends of a session return to z and descend again with fresh random tie
  // breaks; after that a dead end is searched depth-first (descend's `search`) before it
  // returns to z.
  const std::uint32_t limit5 = small_ ? p_.block5_backtracks_small : p_.block5_backtracks;
  const std::uint32_t repeat_bound = small_ ? p_.repeat_bound_small : p_.repeat_bound;
  for (std::uint32_t returns = 0;; ++returns) {
    const Descent d = descend(-1, returns >= repeat_bound);
    if (d == Descent::solved) return Exit::solved;
    if (d == Descent::limit) return Exit::limit;
    if (start != Start::z && returns >= limit5) return Exit::back_to_block3;
    unwind();
    if (!backtrack()) return Exit::attempt_failed;
  }
}

// Block 5 as the paper's "restore z and retry (up to repeatBound times), then try the row's
// next cell" ([Grigoryan], block 5), with the loops of the author's code: the first queen
// of a descent sweeps the rows in block 4's ranking and, within a row, its free cells at z in
// ascending column order; from each such first queen, descents follow the minimum-risk and
// minimum-damage rules, and a dead end returns to z and descends again from the same first
// queen (fresh random tie breaks) until repeat_bound returns have failed, then the next cell,
// then the next row. A sweep that ends without a completion starts over. The position is
// kept in sweep_: a later session at the same z goes on from it (GrigoryanParams::
// sweep_resumes, set by block 4).
Grigoryan::Exit Grigoryan::block5_sweep(Start start) {
  const std::uint32_t limit5 = small_ ? p_.block5_backtracks_small : p_.block5_backtracks;
  const std::uint32_t repeat_bound = small_ ? p_.repeat_bound_small : p_.repeat_bound;
  const std::vector<Index>& ranked = final_.ranked_rows();
  std::uint32_t returns = 0;
  for (;; sweep_.rank = 0) {
    for (; sweep_.rank < ranked.size(); ++sweep_.rank, sweep_.first = -1) {
      const Index a = ranked[sweep_.rank];
      if (sweep_.first < 0) {
        sweep_.first = final_.row_cells_begin(a);
        sweep_.repeat = 0;
      }
      for (; sweep_.first < final_.row_cells_end(a); ++sweep_.first, sweep_.repeat = 0) {
        // A descent that broke no tie at random is a function of its first queen: its repeats
        // are the same descent to the same dead end. They are counted (nodes, returns to z,
        // limits: every counter and the random stream as if they had run) but not run.
        bool repeats_identical = false;
        std::uint64_t per_descent = 0;
        for (; sweep_.repeat <= repeat_bound; ++sweep_.repeat) {
          const bool search = p_.search_retractions > 0 && sweep_.repeat == repeat_bound;
          if (repeats_identical && !search) {
            // Not run, but polled as a descent is (the clock and the stop flag too).
            if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Exit::limit;
            if (const std::uint64_t max = watch_.max_nodes(); max != 0 && counters_.nodes + per_descent > max) {
              counters_.nodes = std::max(counters_.nodes, max);
              hit_ = StopReason::max_nodes;
              return Exit::limit;
            }
            counters_.nodes += per_descent;
          } else {
            const std::uint64_t draws = final_.draws(), nodes = counters_.nodes;
            const Descent d = descend(sweep_.first, search);
            if (d == Descent::solved) return Exit::solved;
            if (d == Descent::limit) return Exit::limit;
            repeats_identical = !search && final_.draws() == draws;
            per_descent = counters_.nodes - nodes;
            unwind();
          }
          if (start != Start::z && returns >= limit5) {
            ++sweep_.repeat;  // a later session at the same z goes on after this descent
            return Exit::back_to_block3;
          }
          ++returns;
          if (!backtrack()) return Exit::attempt_failed;
        }
      }
    }
  }
}

// Takes every block-5 queen back: the final stage is at z again.
void Grigoryan::unwind() {
  for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
    if (f->placed >= 0) final_.undo(f->placed);
  frames_.clear();
  pool_.clear();
}

// Block 4: ranks the rows of the reduced matrix and builds the final stage from them. Returns
// the attempt's exit, or nothing with `block` set to the next block (b5, or block3_failed's).
std::optional<Grigoryan::Exit> Grigoryan::block4(Start start, Block& block) {
  // Rows and columns ascending so that the minimum-risk tie order is the paper's (ascending
  // row index).
  sorted_rows_ = rows_;
  sorted_cols_ = cols_;
  std::sort(sorted_rows_.begin(), sorted_rows_.end());
  std::sort(sorted_cols_.begin(), sorted_cols_.end());
  // Blocks 1 and 3 filled the board (a base level of n, e.g. level3 = n: the regression
  // gives that below n = 7 when small_n is lowered): solved, nothing left for block 5.
  if (sorted_rows_.empty()) {
    frames_.clear();  // a block-5 session's queens, if any, are not on the board
    pool_.clear();
    return Exit::solved;
  }
  if (!final_.build(n_, sorted_rows_, sorted_cols_, d1_closed_, d2_closed_, p_.lookahead_columns)) {
    // Started at block 4: the composition itself has a row without a free cell, and no
    // retry can change that.
    // Likewise from y when block 3 has nothing to place (y is x, block 4 sees x again).
    if (start == Start::z || (start == Start::y && k_input_ >= block3_target_)) return Exit::hopeless;
    // Block 3 with nothing to place (k >= its target) and block 4 failing again places
    // no queen: only the clock and the stop flag bound that loop (besides the budgets).
    if ((hit_ = watch_.poll()) != StopReason::none) return Exit::limit;
    if (!block3_failed(start, block)) return Exit::attempt_failed;
    return std::nullopt;
  }
  block3_failures_ = 0;
  // Choice (GrigoryanParams::sweep_resumes): when blocks 1 and 3 placed no queen, z is
  // the composition again, ranked as before, and block 5's sweep goes on where the last
  // session stopped instead of starting over.
  if (!p_.sweep_resumes || k_ != k_input_) sweep_ = {};
  frames_.clear();
  pool_.clear();
  frames_.reserve(sorted_rows_.size());
  pool_.reserve(static_cast<std::size_t>(final_.cell_count()));
  block = Block::b5;
  return std::nullopt;
}

// One attempt from the run's start level; the board is at x (the composition) on entry.
Grigoryan::Exit Grigoryan::attempt(Start start) {
  Block block = start == Start::x ? Block::b1 : start == Start::y ? Block::b2 : Block::b4;
  block3_failures_ = 0;
  if (!p_.sweep_resumes) sweep_ = {};
  for (;;) {
    switch (block) {
      case Block::b1: {
        const Step s = block1();
        if (s == Step::limit) return Exit::limit;
        if (s == Step::failed) {
          // A pass from x itself that placed nothing: when x has a row without a free cell,
          // no pass ever will (and no queen would count towards max_nodes): no completion.
          if (k_ == k_input_ && has_dead_row()) return Exit::hopeless;
          restore_x();
          if (!backtrack()) return Exit::attempt_failed;
          continue;
        }
        block = Block::b2;
        break;
      }
      case Block::b2:
        save_y();
        block3_failures_ = 0;
        block = Block::b3;
        break;
      case Block::b3: {
        const Step s = block3();
        if (s == Step::limit) return Exit::limit;
        if (s == Step::failed) {
          if (!block3_failed(start, block)) return Exit::attempt_failed;
          continue;
        }
        block = Block::b4;
        break;
      }
      case Block::b4:
        if (const std::optional<Exit> e = block4(start, block)) return *e;
        break;
      case Block::b5: {
        const Exit e = block5(start);
        if (e != Exit::back_to_block3) return e;
        restore_y();
        if (!backtrack()) return Exit::attempt_failed;
        block = Block::b3;
        break;
      }
    }
  }
}

Grigoryan::Start Grigoryan::start_level() {
  // Which blocks run ([Grigoryan]; [GrigoryanCode]). Choice for n < 7, where the paper
  // defines nothing (its study starts at n = 7): the same final stage as 7 <= n < 50, the only part of the
  // algorithm that does not need base levels; n = 2, 3 then end at the limits.
  small_ = n_ < p_.small_n;
  level2_ = p_.level2 >= 0 ? static_cast<Index>(std::min<std::int64_t>(p_.level2, n_)) : grigoryan_level2(n_);
  level3_ = p_.level3 >= 0 ? static_cast<Index>(std::min<std::int64_t>(p_.level3, n_)) : grigoryan_level3(n_);
  block3_target_ = p_.block3_stops_at_level2 ? level2_ : level3_;
  if (small_) return Start::z;
  if (n_ < p_.medium_n) return Start::y;
  return k_input_ < level2_ ? Start::x : k_input_ < level3_ ? Start::y : Start::z;
}

// Block 0: control arrays of the composition's columns and diagonals; x is the composition.
// Its O(n) passes are polled (core/limit_watch.hpp, SetupWatch); a composition whose lists
// (16 bytes per free row: rows, columns, the trail, block 1's shuffle buffer) can never fit
// is refused before they are allocated. Returns the limit that stopped it, else none.
StopReason Grigoryan::block0() {
  SetupWatch setup(&watch_);
  Bitset used;
  if (!close_lines(board_, used, d1_closed_, d2_closed_, &setup))
    throw std::invalid_argument("inconsistent composition: " + verify(board_).describe(board_));
  if (setup.hit() == StopReason::none) {
    const std::uint64_t free_rows = static_cast<std::uint64_t>(n_) - used.count();
    require_memory(16 * free_rows, "engine 'grigoryan' at n = " + std::to_string(n_) + " with " +
                                       std::to_string(free_rows) + " free rows (16 bytes per free row)");
    collect_free_lines(used, &setup);
  }
  return setup.hit();
}

Result Grigoryan::run() {
  Result result;
  if (const StopReason hit = block0(); hit != StopReason::none) {
    result.limit = hit;
    return result;
  }
  k_ = k_input_ = n_ - static_cast<Index>(rows_.size());
  if (rows_.empty()) {
    result.outcome = Outcome::solved;
    result.solution = std::move(board_);
    return result;
  }
  trail_.reserve(rows_.size());

  const Start start = start_level();
  for (std::uint32_t a = 0;; ++a) {
    if (a > 0) {
      // A restart: back to the start level with a fresh budget; the return is a backtrack.
      // Every start level holds the composition itself, so the board goes back to x.
      ++counters_.restarts;
      ++counters_.backtracks;
      restore_x();
    }
    attempt_backtracks_ = 0;
    const Exit e = attempt(start);
    if (e == Exit::solved) {
      for (const Frame& f : frames_)
        board_.q[static_cast<std::size_t>(final_.board_row(f.placed))] = final_.board_col(f.placed) + 1;
      counters_.placed_random = static_cast<std::uint64_t>(k_ - k_input_);
      counters_.placed_search = frames_.size();
      result.outcome = Outcome::solved;
      result.solution = std::move(board_);
      break;
    }
    if (e == Exit::limit) {
      result.outcome = Outcome::gave_up;
      result.limit = hit_;
      break;
    }
    if (e == Exit::hopeless || a >= p_.restarts) {
      result.outcome = Outcome::gave_up;
      result.limit = StopReason::grigoryan_limits;
      break;
    }
  }
  result.counters = counters_;
  return result;
}

}  // namespace

double grigoryan_b2(Index n) {
  const double u = std::log10(static_cast<double>(n));
  return n < 30000 ? cubic(u, 12.749568, -46.535838, 120.011829, -89.600272)
                   : cubic(u, -0.886344, 56.136743, -146.486415, 227.967782);
}

double grigoryan_b3(Index n) {
  const double u = std::log10(static_cast<double>(n));
  return n < 30000 ? cubic(u, 9.717958, -46.144187, 101.296409, -50.669273)
                   : cubic(u, 14.959815, -253.661725, 1584.711376, -3060.691342);
}

Index grigoryan_level2(Index n) { return level_from(n, grigoryan_b2(n)); }
Index grigoryan_level3(Index n) { return level_from(n, grigoryan_b3(n)); }

Result complete_grigoryan(const Composition& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params) {
  return complete_grigoryan(Composition(composition), rng, limits, params);
}

Result complete_grigoryan(Composition&& composition, Rng& rng, const Limits& limits, const GrigoryanParams& params) {
  // Block 0 checks the composition (close_lines) and throws std::invalid_argument.
  Grigoryan run(std::move(composition), rng, limits, params);
  return run.run();
}

}  // namespace nqc
