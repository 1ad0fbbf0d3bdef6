#include "core/engines/bitboard.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/limit_watch.hpp"
#include "core/lines.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// A set of up to 64 W free columns (or free rows).
template <int W>
struct Words {
  std::array<std::uint64_t, W> w{};

  void set(int i) { w[static_cast<std::size_t>(i >> 6)] |= std::uint64_t{1} << (i & 63); }
  [[nodiscard]] bool test(int i) const { return ((w[static_cast<std::size_t>(i >> 6)] >> (i & 63)) & 1U) != 0; }
  [[nodiscard]] bool empty() const {
    std::uint64_t any = 0;
    for (const std::uint64_t x : w) any |= x;
    return any == 0;
  }
  [[nodiscard]] int count() const {
    int c = 0;
    for (const std::uint64_t x : w) c += __builtin_popcountll(x);
    return c;
  }
  Words& operator&=(const Words& o) {
    for (int i = 0; i < W; ++i) w[static_cast<std::size_t>(i)] &= o.w[static_cast<std::size_t>(i)];
    return *this;
  }
  Words& operator|=(const Words& o) {
    for (int i = 0; i < W; ++i) w[static_cast<std::size_t>(i)] |= o.w[static_cast<std::size_t>(i)];
    return *this;
  }
  [[nodiscard]] Words operator&(const Words& o) const {
    Words r = *this;
    return r &= o;
  }
  [[nodiscard]] Words minus(const Words& o) const {
    Words r;
    for (int i = 0; i < W; ++i) r.w[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i)] & ~o.w[static_cast<std::size_t>(i)];
    return r;
  }
  [[nodiscard]] int common(const Words& o) const {
    int c = 0;
    for (int i = 0; i < W; ++i) c += __builtin_popcountll(w[static_cast<std::size_t>(i)] & o.w[static_cast<std::size_t>(i)]);
    return c;
  }
  // Calls fn(i) for every member, ascending.
  template <class Fn>
  void each(Fn&& fn) const {
    for (int i = 0; i < W; ++i)
      for (std::uint64_t x = w[static_cast<std::size_t>(i)]; x != 0; x &= x - 1) fn(64 * i + __builtin_ctzll(x));
  }
  // each(), until fn returns false.
  template <class Fn>
  void each_while(Fn&& fn) const {
    for (int i = 0; i < W; ++i)
      for (std::uint64_t x = w[static_cast<std::size_t>(i)]; x != 0; x &= x - 1)
        if (!fn(64 * i + __builtin_ctzll(x))) return;
  }
};

// The residual on words: free rows a (board row rows[a]); attack(a, b, a2) are the cells of
// row a2 that a queen on (a, b) takes. Two layouts. Boards of n <= 64 W: bit b is board
// column b, and a queen's three lines in another row are three shifts of its bit (nothing to
// set up beyond the rows' free cells). Larger boards: bit b is the b-th free column
// (ascending), and a queen's diagonals in row a2 are the free columns col +- d (d the rows'
// distance), found through a map of board columns (an earlier table of f^3 sets cost 1.3 ms
// of set-up a case at n = 100).
template <int W>
class WordBoard {
 public:
  // With `setup`, its O(n) passes are polled: a board whose set-up a limit stopped
  // (setup->hit() set) is incomplete, for no search.
  explicit WordBoard(const Composition& c, SetupWatch* setup = nullptr) : n_(c.n()) {
    Bitset used, diff, sum;
    if (!close_lines(c, used, diff, sum, setup))
      throw std::invalid_argument("inconsistent composition: " + verify(c).describe(c));
    rows_ = free_rows_of(c, setup);
    if (setup != nullptr && setup->stopped()) return;
    f_ = static_cast<int>(rows_.size());
    by_board_column_ = n_ <= 64 * W;
    if (by_board_column_) {
      cols_.resize(static_cast<std::size_t>(n_));
      for (Index col = 0; col < n_; ++col) cols_[static_cast<std::size_t>(col)] = col;
      for (Index col = 0; col < n_; ++col)
        if (!used.test(static_cast<std::size_t>(col))) free_cols_.set(col);
    } else {
      cols_ = free_columns_of(used, n_, setup);
      if (setup != nullptr && setup->stopped()) return;
      for (int b = 0; b < f_; ++b) free_cols_.set(b);
    }
    free0_.resize(static_cast<std::size_t>(f_));
    for (int a = 0; a < f_; ++a)
      free_cols_.each([&](int b) {
        const Index r = rows_[static_cast<std::size_t>(a)], col = cols_[static_cast<std::size_t>(b)];
        if (!diff.test(diff_line(n_, r, col)) && !sum.test(sum_line(r, col))) free0_[static_cast<std::size_t>(a)].set(b);
      });
    if (by_board_column_ || n_ > kDenseColumnMap) return;
    compact_.assign(static_cast<std::size_t>(n_), -1);
    for (int b = 0; b < f_; ++b) compact_[static_cast<std::size_t>(cols_[static_cast<std::size_t>(b)])] = b;
  }

  [[nodiscard]] int free_rows() const { return f_; }
  [[nodiscard]] Index board_row(int a) const { return rows_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index board_col(int b) const { return cols_[static_cast<std::size_t>(b)]; }
  [[nodiscard]] const Words<W>& initial(int a) const { return free0_[static_cast<std::size_t>(a)]; }
  /// The free columns, as bits.
  [[nodiscard]] const Words<W>& free_columns() const { return free_cols_; }
  [[nodiscard]] Words<W> attack(int a, int b, int a2) const {
    const Index d = rows_[static_cast<std::size_t>(a2)] - rows_[static_cast<std::size_t>(a)];
    Words<W> t;
    if (!by_board_column_) {
      t.set(b);
      const Index col = cols_[static_cast<std::size_t>(b)];
      for (const Index target : {col + d, col - d}) {
        if (target < 0 || target >= n_) continue;
        const int at = compact_of(target);
        if (at >= 0) t.set(at);
      }
      return t;
    }
    if constexpr (W == 1) {
      // n <= 64: |d| <= 63, and bits beyond n are never in a row's cells.
      const std::uint64_t bit = std::uint64_t{1} << b;
      const auto ad = static_cast<unsigned>(d < 0 ? -d : d);
      t.w[0] = bit | (bit << ad) | (bit >> ad);
    } else {
      t.set(b);
      if (b + d >= 0 && b + d < n_) t.set(b + d);
      if (b - d >= 0 && b - d < n_) t.set(b - d);
    }
    return t;
  }

 private:
  // Boards up to this size map a board column to its free-column index through an array of n
  // (4n bytes, as the composition); larger ones search the f sorted free columns.
  static constexpr Index kDenseColumnMap = Index{1} << 24;

  // The free-column index of board column `col`, -1 when the column is used.
  [[nodiscard]] int compact_of(Index col) const {
    if (!compact_.empty()) return compact_[static_cast<std::size_t>(col)];
    const auto it = std::lower_bound(cols_.begin(), cols_.end(), col);
    return it != cols_.end() && *it == col ? static_cast<int>(it - cols_.begin()) : -1;
  }

  Index n_;
  int f_ = 0;
  bool by_board_column_ = false;
  std::vector<Index> rows_, cols_;
  Words<W> free_cols_;
  std::vector<Words<W>> free0_;
  std::vector<int> compact_;
};

// Depth-first search over a WordBoard. Level l holds the free cells of every row after l
// placements (rows already filled keep stale sets, never read), the open rows and the free
// columns. `rng` null: counting (every cell in column order, no restarts).
template <int W>
class WordSearch {
 public:
  WordSearch(const WordBoard<W>& board, Rng* rng, bool least_damage, LimitWatch& watch, Counters& counters,
             bool column_singles = true)
      : board_(board),
        rng_(rng),
        least_damage_(least_damage),
        watch_(watch),
        counters_(counters),
        f_(board.free_rows()),
        column_singles_(column_singles) {
    const auto fs = static_cast<std::size_t>(f_);
    cells_.resize((fs + 1) * fs);
    open_.resize(fs + 1);
    cols_.resize(fs + 1);
    stack_.reserve(fs + 1);
    pool_.reserve(fs * fs);
    counts_.resize(fs);
  }

  // True when the root itself fails: an open row or a free column without a free cell.
  bool dead_at_root() {
    Words<W> covered, twice, thrice;
    for (int a = 0; a < f_; ++a) {
      cells(0, a) = board_.initial(a);
      counts_[static_cast<std::size_t>(a)] = cells(0, a).count();
      if (cells(0, a).empty()) return true;
      thrice |= twice & cells(0, a);
      twice |= covered & cells(0, a);
      covered |= cells(0, a);
      open_[0].set(a);
    }
    cols_[0] = board_.free_columns();
    singles_ = covered.minus(twice);
    doubles_ = twice.minus(thrice);
    root_counts_ = counts_;
    root_singles_ = singles_;
    root_doubles_ = doubles_;
    return !cols_[0].minus(covered).empty();
  }

  // Runs until a solution (on_solution returns true to stop), the space is exhausted (none),
  // a limit (returned), or `restart_at` nodes (none, with `restarted` set; 0: never).
  template <class OnSolution>
  StopReason run(std::uint64_t restart_at, OnSolution&& on_solution, bool* restarted = nullptr) {
    stack_.clear();
    pool_.clear();
    counts_ = root_counts_;  // a restart: the root's, not those of the last placement
    singles_ = root_singles_;
    doubles_ = root_doubles_;
    push(0);
    while (!stack_.empty()) {
      Frame& top = stack_.back();
      if (top.placed >= 0) {
        top.placed = -1;
        ++counters_.backtracks;
      }
      if (top.next == top.end) {
        pool_.resize(top.begin);
        stack_.pop_back();
        continue;
      }
      const StopReason hit = watch_.check(counters_.nodes);
      if (hit != StopReason::none) return hit;
      if (restart_at != 0 && counters_.nodes >= restart_at) {
        *restarted = true;
        return StopReason::none;
      }
      const int cell = pool_[top.next++];
      ++counters_.nodes;
      top.row = cell >> 8;
      top.placed = cell & 255;
      const int level = static_cast<int>(stack_.size()) - 1;
      if (!place(level, top.row, top.placed)) continue;
      if (open_[static_cast<std::size_t>(level) + 1].empty()) {
        if (on_solution(stack_)) return StopReason::none;
        continue;
      }
      push(level + 1);
    }
    return StopReason::none;
  }

  // A row being tried: its candidates are pool_[begin, end), `next` the first untried.
  struct Frame {
    int row;
    std::size_t begin, end, next;
    int placed = -1;
  };

 private:
  Words<W>& cells(int level, int a) {
    return cells_[static_cast<std::size_t>(level) * static_cast<std::size_t>(f_) + static_cast<std::size_t>(a)];
  }

  // Opens a frame at `level`: the minimum-remaining-values row (from counts_, which the
  // placement that made this level filled) and its candidates.
  void push(int level) {
    const Words<W>& open = open_[static_cast<std::size_t>(level)];
    int best = -1, best_count = 0;
    std::uint64_t ties = 0;
    open.each([&](int a) {
      const int c = counts_[static_cast<std::size_t>(a)];
      if (best < 0 || c < best_count) {
        best = a;
        best_count = c;
        ties = 1;
      } else if (c == best_count && rng_ != nullptr && rng_->below(++ties) == 0) {
        best = a;
      }
    });
    const std::size_t begin = pool_.size();
    if (column_singles_ && best_count > 1 && !singles_.empty()) {
      // A free column with one candidate cell left: its queen can only go there, whatever the
      // other rows do, so branch on it (one child) before the row of fewest cells.
      int col = -1;
      singles_.each_while([&](int b) { return col = b, false; });
      open.each_while([&](int a) { return cells(level, a).test(col) ? (best = a, false) : true; });
      pool_.push_back(best << 8 | col);
      stack_.push_back({best, begin, pool_.size(), begin, -1});
      return;
    }
    if (column_singles_ && best_count > 2 && !doubles_.empty()) {
      // A free column with two candidate cells (in two rows): two children, fewer than the row.
      int col = -1;
      doubles_.each_while([&](int b) { return col = b, false; });
      open.each([&](int a) {
        if (cells(level, a).test(col)) pool_.push_back(a << 8 | col);
      });
      if (rng_ != nullptr && rng_->below(2) == 0) std::swap(pool_[begin], pool_[begin + 1]);
      stack_.push_back({-1, begin, pool_.size(), begin, -1});
      return;
    }
    cells(level, best).each([&](int b) { pool_.push_back(best << 8 | b); });
    if (rng_ != nullptr) {
      const auto first = pool_.begin() + static_cast<std::ptrdiff_t>(begin);
      shuffle(first, pool_.end(), *rng_);
      if (least_damage_ && pool_.size() - begin > 1) {
        // Insertion sort by damage (a row holds a handful of cells), stable after the shuffle.
        damage_.clear();
        for (std::size_t i = begin; i < pool_.size(); ++i) {
          int taken = 0;
          const int b = pool_[i] & 255;
          open.each([&](int a2) {
            if (a2 != best) taken += cells(level, a2).common(board_.attack(best, b, a2));
          });
          damage_.push_back(taken);
        }
        for (std::size_t i = 1; i < damage_.size(); ++i)
          for (std::size_t j = i; j > 0 && damage_[j] < damage_[j - 1]; --j) {
            std::swap(damage_[j], damage_[j - 1]);
            std::swap(pool_[begin + j], pool_[begin + j - 1]);
          }
      }
    }
    stack_.push_back({best, begin, pool_.size(), begin, -1});
  }

  // Level + 1 := level with a queen on (a, b); false when an open row or a free column is
  // left without a free cell.
  bool place(int level, int a, int b) {
    const auto l = static_cast<std::size_t>(level);
    Words<W> open = open_[l];
    open.w[static_cast<std::size_t>(a >> 6)] &= ~(std::uint64_t{1} << (a & 63));
    Words<W> cols = cols_[l];
    cols.w[static_cast<std::size_t>(b >> 6)] &= ~(std::uint64_t{1} << (b & 63));
    Words<W> covered, twice, thrice;
    bool alive = true;
    // Stops at the first open row left without a cell: the level is then never read.
    open.each_while([&](int a2) {
      const Words<W> next = cells(level, a2).minus(board_.attack(a, b, a2));
      const int c = next.count();
      counts_[static_cast<std::size_t>(a2)] = c;
      thrice |= twice & next;
      twice |= covered & next;
      covered |= next;
      cells(level + 1, a2) = next;
      return alive = c != 0;
    });
    if (!alive) return false;
    open_[l + 1] = open;
    cols_[l + 1] = cols;
    singles_ = covered.minus(twice);
    doubles_ = twice.minus(thrice);
    return cols.minus(covered).empty();
  }

  const WordBoard<W>& board_;
  Rng* rng_;
  bool least_damage_;
  LimitWatch& watch_;
  Counters& counters_;
  int f_;
  std::vector<Words<W>> cells_, open_, cols_;
  std::vector<Frame> stack_;
  std::vector<int> pool_, damage_;
  std::vector<int> counts_;  // free cells of each open row at the level last made (MRV)
  Words<W> singles_;         // free columns with one candidate cell at the level last made
  Words<W> doubles_;         // ... with two
  std::vector<int> root_counts_;
  Words<W> root_singles_, root_doubles_;
  bool column_singles_;
};

template <int W>
Result solve(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params) {
  LimitWatch watch(limits, 64);
  SetupWatch setup(&watch);
  const WordBoard<W> board(c, &setup);
  Result result;
  if (setup.hit() != StopReason::none) {
    result.limit = setup.hit();
    return result;
  }
  Counters counters;
  WordSearch<W> search(board, &rng, params.least_damage, watch, counters, params.column_singles);
  if (board.free_rows() == 0) {
    result.outcome = Outcome::solved;
    result.solution = c;
    return result;
  }
  if (search.dead_at_root()) {
    result.outcome = Outcome::infeasible;
    return result;
  }
  // Randomized restarts with Luby budgets, as complete_exact (engines/exact.cpp): complete.
  const auto f = static_cast<std::uint64_t>(board.free_rows());
  for (std::uint64_t run = 1;; ++run) {
    bool solved = false, restarted = false;
    const std::uint64_t budget = restart_budget(params, f, run, counters.nodes);
    const StopReason hit = search.run(saturating_add(counters.nodes, budget), [&](const auto& stack) {
      result.solution = c;
      for (const auto& frame : stack)
        result.solution.q[static_cast<std::size_t>(board.board_row(frame.row))] = board.board_col(frame.placed) + 1;
      counters.placed_search += stack.size();
      solved = true;
      return true;
    }, &restarted);
    if (solved) {
      result.outcome = Outcome::solved;
      break;
    }
    if (restarted) {
      ++counters.restarts;
      continue;
    }
    result.outcome = hit != StopReason::none ? Outcome::gave_up : Outcome::infeasible;
    result.limit = hit;
    break;
  }
  result.counters = counters;
  return result;
}

template <int W>
CountResult count(const Composition& c, const Limits& limits) {
  LimitWatch watch(limits, 1024);
  SetupWatch setup(&watch);
  const WordBoard<W> board(c, &setup);
  CountResult out;
  if (setup.hit() != StopReason::none) {
    out.gave_up = true;
    out.limit = setup.hit();
    return out;
  }
  Counters counters;
  WordSearch<W> search(board, nullptr, false, watch, counters);
  if (board.free_rows() == 0) {
    out.completions = 1;
    return out;
  }
  if (search.dead_at_root()) return out;
  const StopReason hit = search.run(0, [&](const auto&) {
    ++out.completions;
    return false;
  });
  out.nodes = counters.nodes;
  out.gave_up = hit != StopReason::none;
  out.limit = hit;
  return out;
}

Index free_rows_checked(const Composition& c) {
  const Index f = c.n() - c.k();
  if (f > kBitboardMaxFree)
    throw std::invalid_argument("engine 'bitboard' takes at most " + std::to_string(kBitboardMaxFree) + " free rows, got " +
                                std::to_string(f));
  return f;
}

}  // namespace

Result complete_bitboard(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params) {
  const Index f = free_rows_checked(c);
  if (f <= 64) return solve<1>(c, rng, limits, params);
  return solve<2>(c, rng, limits, params);
}

CountResult count_bitboard(const Composition& c, const Limits& limits) {
  const Index f = free_rows_checked(c);
  if (f <= 64) return count<1>(c, limits);
  return count<2>(c, limits);
}

}  // namespace nqc
