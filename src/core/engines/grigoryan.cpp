#include "core/engines/grigoryan.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/limit_watch.hpp"
#include "core/lines.hpp"
#include "core/residual_board.hpp"

// Where the paper and the author's code are silent, the choice is marked "Choice:" with its reason.

namespace nqc {

namespace {

double cubic(double u, double a3, double a2, double a1, double a0) { return ((a3 * u + a2) * u + a1) * u + a0; }

Index level_from(Index n, double b) {
  const auto free_rows = static_cast<std::int64_t>(std::llround(b));
  return static_cast<Index>(std::clamp<std::int64_t>(static_cast<std::int64_t>(n) - free_rows, 0, n));
}

// Blocks 4 and 5: the reduced matrix at restore point z (a ResidualBoard), block 4's damage E
// of every cell and ranking of the rows, and the final stage's tie rules.
class FinalStage {
 public:
  /// Builds the matrix of `rows` x `cols` (ascending board indices) with block 4's counts.
  /// False when some row has no free cell (block 4 checks rows only).
  /// Choice (GrigoryanParams::damage_at_z): block 5 ranks cells by E counted here, at z: only
  /// that reproduces the paper's backtrack shares.
  bool build(Index n, const std::vector<Index>& rows, const std::vector<Index>& cols, const Bitset& d1_closed,
             const Bitset& d2_closed, bool check_columns) {
    board.build(n, rows, cols, d1_closed, d2_closed, check_columns);
    const Index f = board.free_rows();
    damage_at_z_.resize(static_cast<std::size_t>(board.cell_count()));
    for (Index e = 0; e < board.cell_count(); ++e) damage_at_z_[static_cast<std::size_t>(e)] = board.damage(e);
    ranked.resize(static_cast<std::size_t>(f));
    for (Index a = 0; a < f; ++a) ranked[static_cast<std::size_t>(a)] = a;
    std::stable_sort(ranked.begin(), ranked.end(),
                     [this](Index x, Index y) { return board.row_free(x) < board.row_free(y); });
    for (Index a = 0; a < f; ++a)
      if (board.row_free(a) == 0) return false;
    return true;
  }

  [[nodiscard]] Index board_row(Index e) const { return board.board_row(board.cell(e).a); }
  [[nodiscard]] Index board_col(Index e) const { return board.board_col(board.cell(e).b); }

  /// Minimum-risk rule ([Grigoryan], steps 89-91): the open row with the fewest free cells,
  /// a tie broken uniformly among the first min(ties, tied) rows in ascending row index.
  Index choose_row(Rng& rng, std::uint32_t ties) {
    constexpr std::uint32_t kMaxTies = 8;
    ties = std::clamp<std::uint32_t>(ties, 1, kMaxTies);
    Index first[kMaxTies];
    std::uint32_t tied = 0;
    Index best = 0;
    for (Index a = 0; a < board.free_rows(); ++a) {
      if (!board.row_open(a)) continue;
      const Index v = board.row_free(a);
      if (tied == 0 || v < best) {
        best = v;
        first[0] = a;
        tied = 1;
      } else if (v == best && tied < ties) {
        first[tied++] = a;
      }
    }
    if (tied == 1) return first[0];
    ++draws;
    return first[rng.below(tied)];
  }

  /// Minimum-damage rule: appends the free cells of open row a to `out` as (damage, cell),
  /// lowest damage first (E at z when `at_z`, else now), ties in column order; a tie among the
  /// first min(ties, tied) is broken uniformly, the chosen cell moved to the front.
  void candidates(Index a, Rng& rng, std::uint32_t ties, bool at_z, std::vector<std::pair<Index, Index>>& out) {
    const std::size_t first = out.size();
    for (Index e = board.row_cells_begin(a); e < board.row_cells_end(a); ++e) {
      if (!board.is_free(e)) continue;
      out.emplace_back(at_z ? damage_at_z_[static_cast<std::size_t>(e)] : board.damage(e), e);
    }
    // A handful of cells: a stable insertion sort without allocation.
    for (std::size_t i = first + 1; i < out.size(); ++i)
      for (std::size_t j = i; j > first && out[j].first < out[j - 1].first; --j) std::swap(out[j], out[j - 1]);
    std::size_t tied = 1;
    while (first + tied < out.size() && tied < ties && out[first + tied].first == out[first].first) ++tied;
    if (tied > 1) {
      const auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
      ++draws;
      const auto pick = static_cast<std::ptrdiff_t>(rng.below(tied));
      std::rotate(begin, begin + pick, begin + pick + 1);
    }
  }

  ResidualBoard board;
  std::vector<Index> ranked;  // block 4's ranking: ascending free cells, ties by row index
  std::uint64_t draws = 0;    // random tie breaks so far: a descent without any is a function of its first queen

 private:
  std::vector<Index> damage_at_z_;
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

  // x's free rows and columns into rows_ and cols_: recomputed (O(n), at each rare return to
  // x) rather than kept, which saves two lists of up to n entries.
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
  [[nodiscard]] bool is_free(Index r, Index c) const {
    return !d1_closed_.test(d1(r, c)) && !d2_closed_.test(d2(r, c));
  }
  // Whether some free row has no free cell on the free columns: O(f^2) at worst.
  [[nodiscard]] bool has_dead_row() const {
    return std::any_of(rows_.begin(), rows_.end(), [&](Index r) {
      return std::none_of(cols_.begin(), cols_.end(), [&](Index c) { return is_free(r, c); });
    });
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

  // One return to a saved level; false when the attempt's budget is spent.
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
  std::uint32_t limit5_ = 0, repeat_bound_ = 0;
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
  // Block 5: one frame per row placed since z: candidates pool_[begin, end), the next untried,
  // the cell placed (or -1).
  struct Frame {
    std::size_t begin, end, next;
    Index placed;
  };
  std::vector<Frame> frames_;
  std::vector<std::pair<Index, Index>> pool_;
  // Where block 5's sweep stands: ranked row, first queen's cell (-1: the row's first), descents from it.
  struct SweepPosition {
    std::size_t rank = 0;
    Index first = -1;
    std::uint32_t repeat = 0;
  };
  SweepPosition sweep_;
};

// Block 1, randSet & randSet: shuffle the free rows and columns, pair them in order, a queen
// wherever the pair's cell is free; passes until level2 queens stand.
// Choice: a pass that places nothing is the randSet "dead end": the block fails, back to x
// (rare: on the empty n = 1000 board passes stall at 967 +- 8 queens; level2 = 804).
Grigoryan::Step Grigoryan::block1() {
  while (k_ < level2_) {
    // Polled: at n = 10^8 the two shuffles take a second.
    const auto stop = [&] { return (hit_ = watch_.poll()) != StopReason::none; };
    if (!shuffle_bucketed_until(rows_, rng_, shuffled_, stop) || !shuffle_bucketed_until(cols_, rng_, shuffled_, stop))
      return Step::limit;
    const std::size_t f = rows_.size();
    std::size_t kept = 0;
    bool placed = false;
    for (std::size_t i = 0; i < f; ++i) {
      // Random pairs: each probe is a cache miss at large n.
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
      if (is_free(r, c)) buffer_.push_back(static_cast<Index>(j));
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

// A failure of block 3 (or block 4's dead row); false when the attempt ends. Choice: failures
// count from the last save of y and reset when z is saved; the block3_retries-th goes straight
// back to x (one backtrack). For a run not started at block 1, "give up" ends the attempt:
// the restarts still apply.
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

// One descent of block 5 from z: the queen on cell `first` (first < 0: by the rules), then
// minimum-risk row and minimum-damage cell until solved or the look-ahead's dead end. With
// `search`, a dead end first tries next cells, up to search_retractions rows back. unwind()
// takes the queens back.
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
      // No untried cell left: retract the previous row's queen.
      if (!search || frames_.size() == 1 || retractions >= p_.search_retractions) return Descent::dead_end;
      pool_.resize(top.begin);
      frames_.pop_back();
      final_.board.undo(frames_.back().placed);
      frames_.back().placed = -1;
      ++retractions;
      continue;
    }
    if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Descent::limit;
    const Index e = pool_[top.next++].second;
    ++counters_.nodes;
    if (final_.board.place(e)) {
      top.placed = e;
      if (final_.board.open_rows() == 0) return Descent::solved;
      push_row();
      continue;
    }
    final_.board.undo(e);
    if (!search) return Descent::dead_end;
  }
}

// Block 5, the final stage from z: each dead end returns to z (one backtrack); after
// block5_backtracks returns a run started at block 1 or 2 goes back to block 3, one started at
// block 4 goes on to the attempt's budget (as [GrigoryanCode]).
Grigoryan::Exit Grigoryan::block5(Start start) {
  if (p_.first_move_sweep) return block5_sweep(start);
  // The retraction reading: descents by the rules; after repeat_bound returns, dead ends are
  // searched depth-first first.
  for (std::uint32_t returns = 0;; ++returns) {
    const Descent d = descend(-1, returns >= repeat_bound_);
    if (d == Descent::solved) return Exit::solved;
    if (d == Descent::limit) return Exit::limit;
    if (start != Start::z && returns >= limit5_) return Exit::back_to_block3;
    unwind();
    if (!backtrack()) return Exit::attempt_failed;
  }
}

// Block 5 as the paper's "restore z and retry (up to repeatBound times), then try the row's
// next cell", with the author's loops: the first queen sweeps block 4's ranked rows and their
// cells at z; repeat_bound + 1 descents from each; a finished sweep starts over. sweep_ keeps
// the position for a later session at the same z (sweep_resumes).
Grigoryan::Exit Grigoryan::block5_sweep(Start start) {
  const std::vector<Index>& ranked = final_.ranked;
  std::uint32_t returns = 0;
  for (;; sweep_.rank = 0) {
    for (; sweep_.rank < ranked.size(); ++sweep_.rank, sweep_.first = -1) {
      const Index a = ranked[sweep_.rank];
      if (sweep_.first < 0) {
        sweep_.first = final_.board.row_cells_begin(a);
        sweep_.repeat = 0;
      }
      for (; sweep_.first < final_.board.row_cells_end(a); ++sweep_.first, sweep_.repeat = 0) {
        // A descent that broke no tie at random is a function of its first queen: its repeats
        // are counted (every counter as if they had run) but not run.
        bool repeats_identical = false;
        std::uint64_t per_descent = 0;
        for (; sweep_.repeat <= repeat_bound_; ++sweep_.repeat) {
          const bool search = p_.search_retractions > 0 && sweep_.repeat == repeat_bound_;
          if (repeats_identical && !search) {
            if ((hit_ = watch_.check(counters_.nodes)) != StopReason::none) return Exit::limit;
            if (const std::uint64_t max = watch_.max_nodes(); max != 0 && counters_.nodes + per_descent > max) {
              counters_.nodes = std::max(counters_.nodes, max);
              hit_ = StopReason::max_nodes;
              return Exit::limit;
            }
            counters_.nodes += per_descent;
          } else {
            const std::uint64_t draws = final_.draws, nodes = counters_.nodes;
            const Descent d = descend(sweep_.first, search);
            if (d == Descent::solved) return Exit::solved;
            if (d == Descent::limit) return Exit::limit;
            repeats_identical = !search && final_.draws == draws;
            per_descent = counters_.nodes - nodes;
            unwind();
          }
          if (start != Start::z && returns >= limit5_) {
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
    if (f->placed >= 0) final_.board.undo(f->placed);
  frames_.clear();
  pool_.clear();
}

// Block 4: builds the final stage. Returns the attempt's exit, or nothing with `block` set to
// the next block.
std::optional<Grigoryan::Exit> Grigoryan::block4(Start start, Block& block) {
  // Ascending, so that minimum-risk ties go by row index as in the paper.
  sorted_rows_ = rows_;
  sorted_cols_ = cols_;
  std::sort(sorted_rows_.begin(), sorted_rows_.end());
  std::sort(sorted_cols_.begin(), sorted_cols_.end());
  // Blocks 1 and 3 filled the board (a base level of n): solved.
  if (sorted_rows_.empty()) {
    frames_.clear();  // a block-5 session's queens, if any, are not on the board
    pool_.clear();
    return Exit::solved;
  }
  if (!final_.build(n_, sorted_rows_, sorted_cols_, d1_closed_, d2_closed_, p_.lookahead_columns)) {
    // A dead row in the composition itself (from z, or from y with nothing for block 3): no retry helps.
    if (start == Start::z || (start == Start::y && k_input_ >= block3_target_)) return Exit::hopeless;
    // This loop may place no queen: only the clock and the stop flag bound it.
    if ((hit_ = watch_.poll()) != StopReason::none) return Exit::limit;
    if (!block3_failed(start, block)) return Exit::attempt_failed;
    return std::nullopt;
  }
  block3_failures_ = 0;
  // Choice (sweep_resumes): z is the composition again when blocks 1 and 3 placed nothing.
  if (!p_.sweep_resumes || k_ != k_input_) sweep_ = {};
  frames_.clear();
  pool_.clear();
  frames_.reserve(sorted_rows_.size());
  pool_.reserve(static_cast<std::size_t>(final_.board.cell_count()));
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
          // From x itself: a dead row means no pass ever places a queen.
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
  // Choice for n < 7, which the paper leaves undefined: the final stage, as below small_n.
  small_ = n_ < p_.small_n;
  limit5_ = small_ ? p_.block5_backtracks_small : p_.block5_backtracks;
  repeat_bound_ = small_ ? p_.repeat_bound_small : p_.repeat_bound;
  level2_ = p_.level2 >= 0 ? static_cast<Index>(std::min<std::int64_t>(p_.level2, n_)) : grigoryan_level2(n_);
  level3_ = p_.level3 >= 0 ? static_cast<Index>(std::min<std::int64_t>(p_.level3, n_)) : grigoryan_level3(n_);
  block3_target_ = p_.block3_stops_at_level2 ? level2_ : level3_;
  if (small_) return Start::z;
  if (n_ < p_.medium_n) return Start::y;
  return k_input_ < level2_ ? Start::x : k_input_ < level3_ ? Start::y : Start::z;
}

// Block 0: the control arrays; x is the composition. Polled; the lists (16 bytes per free
// row) are refused before allocation when they can never fit.
StopReason Grigoryan::block0() {
  SetupWatch setup(&watch_);
  Bitset used;
  close_lines(board_, used, d1_closed_, d2_closed_, &setup);
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
  if ((result.limit = block0()) != StopReason::none) return result;
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
      // A restart (one backtrack): every start level holds the composition, x.
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

Index grigoryan_level2(Index n) {
  const double u = std::log10(static_cast<double>(n));
  return level_from(n, n < 30000 ? cubic(u, 12.749568, -46.535838, 120.011829, -89.600272)
                                 : cubic(u, -0.886344, 56.136743, -146.486415, 227.967782));
}

Index grigoryan_level3(Index n) {
  const double u = std::log10(static_cast<double>(n));
  return level_from(n, n < 30000 ? cubic(u, 9.717958, -46.144187, 101.296409, -50.669273)
                                 : cubic(u, 14.959815, -253.661725, 1584.711376, -3060.691342));
}

Result complete_grigoryan(const Composition& composition, Rng& rng, const Limits& limits,
                          const GrigoryanParams& params) {
  return complete_grigoryan(Composition(composition), rng, limits, params);
}

Result complete_grigoryan(Composition&& composition, Rng& rng, const Limits& limits, const GrigoryanParams& params) {
  Grigoryan run(std::move(composition), rng, limits, params);
  return run.run();
}

}  // namespace nqc
