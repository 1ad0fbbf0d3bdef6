#include "core/engines/bitboard.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/engines/depth_first.hpp"
#include "core/limit_watch.hpp"
#include "core/lines.hpp"

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
  Words& operator|=(const Words& o) {
    for (int i = 0; i < W; ++i) w[static_cast<std::size_t>(i)] |= o.w[static_cast<std::size_t>(i)];
    return *this;
  }
  [[nodiscard]] Words minus(const Words& o) const {
    Words r;
    for (int i = 0; i < W; ++i)
      r.w[static_cast<std::size_t>(i)] = w[static_cast<std::size_t>(i)] & ~o.w[static_cast<std::size_t>(i)];
    return r;
  }
  [[nodiscard]] int common(const Words& o) const {
    int c = 0;
    for (int i = 0; i < W; ++i)
      c += __builtin_popcountll(w[static_cast<std::size_t>(i)] & o.w[static_cast<std::size_t>(i)]);
    return c;
  }
  // Calls fn(i) for every member, ascending.
  template <class Fn>
  void each(Fn&& fn) const {
    each_while([&](int i) { return fn(i), true; });
  }
  // The j-th member, ascending (j < count()).
  [[nodiscard]] int nth(std::uint64_t j) const {
    int at = -1;
    each_while([&](int i) { return j-- == 0 ? (at = i, false) : true; });
    return at;
  }
  // each(), until fn returns false.
  template <class Fn>
  void each_while(Fn&& fn) const {
    for (int i = 0; i < W; ++i)
      for (std::uint64_t x = w[static_cast<std::size_t>(i)]; x != 0; x &= x - 1)
        if (!fn(64 * i + __builtin_ctzll(x))) return;
  }
};

// How many of the rows added hold each column, bit-sliced: exact up to 7 (c[0..2], the count's
// binary digits), c[3] set from 8 on.
template <int W>
struct ColumnCounts {
  std::array<Words<W>, 4> c{};

  void add(const Words<W>& x) {
    for (int i = 0; i < W; ++i) {
      const auto at = static_cast<std::size_t>(i);
      std::uint64_t carry = x.w[at];
      for (std::size_t bit = 0; bit < 3; ++bit) {
        const std::uint64_t next = c[bit].w[at] & carry;
        c[bit].w[at] ^= carry;
        carry = next;
      }
      c[3].w[at] |= carry;
    }
  }
  // The columns held by exactly k rows (0 < k < 8).
  [[nodiscard]] Words<W> with(int k) const {
    Words<W> r;
    for (int i = 0; i < W; ++i) {
      const auto at = static_cast<std::size_t>(i);
      std::uint64_t m = ~c[3].w[at];
      for (std::size_t bit = 0; bit < 3; ++bit) m &= (k >> bit & 1) != 0 ? c[bit].w[at] : ~c[bit].w[at];
      r.w[at] = m;
    }
    return r;
  }
};

// The residual on words: free rows a; attack(a, b, a2) are the cells of row a2 that a queen on
// (a, b) takes. Boards of n <= 64 W: bit b is board column b, a queen's lines in another row
// three shifts of its bit. Larger: bit b is the b-th free column, the diagonals found through a
// map of board columns.
template <int W>
class WordBoard {
 public:
  // With `setup`, polled: a board whose set-up a limit stopped is incomplete.
  explicit WordBoard(const Composition& c, SetupWatch* setup = nullptr) : n_(c.n()) {
    Bitset used, diff, sum;
    close_lines(c, used, diff, sum, setup);
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
        if (!diff.test(diff_line(n_, r, col)) && !sum.test(sum_line(r, col)))
          free0_[static_cast<std::size_t>(a)].set(b);
      });
    if (by_board_column_ || n_ > kDenseColumnMap) return;
    compact_.assign(static_cast<std::size_t>(n_), -1);
    for (int b = 0; b < f_; ++b) compact_[static_cast<std::size_t>(cols_[static_cast<std::size_t>(b)])] = b;
  }

  [[nodiscard]] int free_rows() const { return f_; }
  /// Whether bit b is board column b (n <= 64 W), so that attack() is three shifts.
  [[nodiscard]] bool by_board_column() const { return by_board_column_; }
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

// The board policy of DepthFirst over a WordBoard: level l holds the free cells of every open
// row after l placements, its open rows and free columns, and its candidates (a << 8 | b) in
// pool_ from l * f. `rng` null: counting (every cell ascending).
template <int W>
class WordSearch {
 public:
  WordSearch(const WordBoard<W>& board, Rng* rng, bool least_damage, bool column_branching)
      : board_(board),
        rng_(rng),
        least_damage_(least_damage),
        column_branching_(column_branching),
        f_(board.free_rows()) {
    const auto fs = static_cast<std::size_t>(f_);
    cells_.resize((fs + 1) * fs);
    pool_.resize((fs + 1) * fs);
    levels_.resize(fs + 1);
  }

  [[nodiscard]] int free_rows() const { return f_; }

  // True when the root itself fails: an open row or a free column without a free cell.
  bool dead_at_root() {
    Level& root = levels_[0];
    root = Level{};
    root.cols = board_.free_columns();
    Words<W> covered;
    for (int a = 0; a < f_; ++a) {
      const Words<W>& initial = board_.initial(a);
      if (initial.empty()) return true;
      cells(0, a) = initial;
      root.open.set(a);
      covered |= initial;
    }
    return !root.cols.minus(covered).empty();
  }

  // `randomized`: ties and candidates in random order; else the first of the tied rows and the
  // candidates rotated by one random draw (counting: ascending).
  void start_run(bool randomized) { shuffled_ = randomized && rng_ != nullptr; }

  // The candidates of `level` into pool_, their count returned: a free column with k < 8
  // candidates, fewer than the row of fewest cells, is branched on; else the minimum-remaining-
  // values row, its cells in the run's order (least damage first with least_damage_). Counted
  // here, not in place(): about half the placements fail.
  int candidates(int level) {
    const Level& at = levels_[static_cast<std::size_t>(level)];
    int* out = pool_.data() + static_cast<std::ptrdiff_t>(level) * f_;
    int size = 0;
    Fewest fewest;
    ColumnCounts<W> columns;
    count_free(level, at, fewest, columns);
    for (int k = 1; column_branching_ && k < fewest.count && k < 8; ++k) {
      const Words<W> with = columns.with(k);
      if (with.empty()) continue;
      const int b = with.nth(0);
      at.open.each([&](int a) {
        if (cells(level, a).test(b)) out[size++] = a << 8 | b;
      });
      order(out, size);
      return size;
    }
    const int best = pick_tied(static_cast<std::uint64_t>(fewest.rows.count()), shuffled_ ? rng_ : nullptr,
                               [&](std::uint64_t j) { return fewest.rows.nth(j); });
    cells(level, best).each([&](int b) { out[size++] = best << 8 | b; });
    order(out, size);
    if (least_damage_ && size > 1) sort_by_damage(level, at, best, out, size);
    return size;
  }

  // `level + 1` := `level` with candidate i's queen: its cells and choice; false when an open
  // row or a free column is left without a free cell (forward checking).
  bool place(int level, int i) {
    const int cell = candidate(level, i);
    const int a = cell >> 8, b = cell & 255;
    const Level& at = levels_[static_cast<std::size_t>(level)];
    Level& next = levels_[static_cast<std::size_t>(level) + 1];
    next.open = at.open;
    next.open.w[static_cast<std::size_t>(a >> 6)] &= ~(std::uint64_t{1} << (a & 63));
    next.cols = at.cols;
    next.cols.w[static_cast<std::size_t>(b >> 6)] &= ~(std::uint64_t{1} << (b & 63));
    if constexpr (W == 1) {
      if (board_.by_board_column()) return place_by_board_column(level, a, b, next);
    }
    Words<W> covered;
    bool alive = true;
    // Stops at the first open row left without a cell: the level is then never read.
    next.open.each_while([&](int a2) {
      const Words<W> left = cells(level, a2).minus(board_.attack(a, b, a2));
      covered |= left;
      cells(level + 1, a2) = left;
      return alive = !left.empty();
    });
    return alive && next.cols.minus(covered).empty();
  }
  // Each level keeps its own cells: nothing to take back.
  void undo(int /*level*/, int /*i*/) {}
  [[nodiscard]] std::pair<Index, Index> queen(int level, int i) const {
    const int cell = candidate(level, i);
    return {board_.board_row(cell >> 8), board_.board_col(cell & 255)};
  }

 private:
  static constexpr int kNone = 1 << 30;

  // The open rows and free columns after the placements of a level.
  struct Level {
    Words<W> open, cols;
  };
  // The open rows with the fewest free cells.
  struct Fewest {
    int count = kNone;
    Words<W> rows;
  };

  [[nodiscard]] int candidate(int level, int i) const {
    return pool_[static_cast<std::size_t>(level) * static_cast<std::size_t>(f_) + static_cast<std::size_t>(i)];
  }
  Words<W>& cells(int level, int a) {
    return cells_[static_cast<std::size_t>(level) * static_cast<std::size_t>(f_) + static_cast<std::size_t>(a)];
  }

  // The open rows of fewest free cells at `level` (all of them in a randomized run, else the
  // first) and how many open rows hold each column.
  void count_free(int level, const Level& at, Fewest& fewest, ColumnCounts<W>& columns) {
    if constexpr (W == 1) {
      const Words<W>* free = &cells(level, 0);
      std::uint64_t rows = 0;
      int least = kNone;
      for (std::uint64_t x = at.open.w[0]; x != 0; x &= x - 1) {
        const int a = __builtin_ctzll(x);
        const int c = __builtin_popcountll(free[a].w[0]);
        const std::uint64_t mine = x & (0 - x);
        if (shuffled_) {
          // All the rows of fewest cells, without branches on the counts (in random order).
          rows = c < least ? mine : (c == least ? rows | mine : rows);
          least = c < least ? c : least;
        } else if (c < least) {  // the first only
          least = c;
          rows = mine;
        }
        columns.add(free[a]);
      }
      fewest.count = least;
      fewest.rows.w[0] = rows;
    } else {
      at.open.each([&](int a) {
        const Words<W>& free = cells(level, a);
        const int c = free.count();
        if (c < fewest.count) {
          fewest.count = c;
          fewest.rows = Words<W>{};
        }
        if (c == fewest.count) fewest.rows.set(a);
        columns.add(free);
      });
    }
  }

  // The candidates in the run's order: shuffled in a randomized run, else rotated by a random
  // offset (ascending columns took 10-20% more nodes near prob079's phase transition).
  void order(int* out, int size) {
    if (rng_ == nullptr || size < 2) return;
    if (shuffled_)
      shuffle(out, out + size, *rng_);
    else
      std::rotate(out, out + rng_->below(static_cast<std::uint64_t>(size)), out + size);
  }

  // Row `best`'s candidates out[0, size) by damage (the free cells each queen would take from
  // the other open rows): insertion sort (a row holds a handful of cells), stable after order().
  void sort_by_damage(int level, const Level& at, int best, int* out, int size) {
    std::array<int, kBitboardMaxFree> damage{};
    for (int i = 0; i < size; ++i) {
      const int b = out[i] & 255;
      at.open.each([&](int a2) {
        if (a2 != best) damage[static_cast<std::size_t>(i)] += cells(level, a2).common(board_.attack(best, b, a2));
      });
    }
    for (int i = 1; i < size; ++i)
      for (int j = i; j > 0 && damage[static_cast<std::size_t>(j)] < damage[static_cast<std::size_t>(j - 1)]; --j) {
        std::swap(damage[static_cast<std::size_t>(j)], damage[static_cast<std::size_t>(j - 1)]);
        std::swap(out[j], out[j - 1]);
      }
  }

  // place() on one word by board column (n <= 64): a queen's lines in another row are three
  // shifts of its bit, everything in registers.
  bool place_by_board_column(int level, int a, int b, const Level& next) {
    const std::uint64_t bit = std::uint64_t{1} << b;
    const Index row = board_.board_row(a);
    const Words<W>* from = &cells(level, 0);
    Words<W>* to = &cells(level + 1, 0);
    std::uint64_t covered = 0;
    for (std::uint64_t x = next.open.w[0]; x != 0; x &= x - 1) {
      const int a2 = __builtin_ctzll(x);
      const Index d = board_.board_row(a2) - row;
      const auto ad = static_cast<unsigned>(d < 0 ? -d : d);
      const std::uint64_t left = from[a2].w[0] & ~(bit | bit << ad | bit >> ad);
      if (left == 0) return false;
      covered |= left;
      to[a2].w[0] = left;
    }
    return (next.cols.w[0] & ~covered) == 0;
  }

  const WordBoard<W>& board_;
  Rng* rng_;
  bool shuffled_ = false;  // a randomized run
  bool least_damage_, column_branching_;
  int f_;
  std::vector<Words<W>> cells_;
  std::vector<int> pool_;  // each level's candidates, f entries per level
  std::vector<Level> levels_;
};

template <int W>
Result solve(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params) {
  LimitWatch watch(limits, 64);
  SetupWatch setup(&watch);
  const WordBoard<W> board(c, &setup);
  Result result;
  if ((result.limit = setup.hit()) != StopReason::none) return result;
  WordSearch<W> policy(board, &rng, params.least_damage, params.column_branching);
  DepthFirst<WordSearch<W>> search(policy, watch, result.counters);
  result.outcome = luby_restarts(search, result.counters, params, result.limit);
  if (result.outcome == Outcome::solved) {
    result.solution = c;
    search.write(result.solution);
  }
  return result;
}

template <int W>
CountResult count(const Composition& c, const Limits& limits) {
  LimitWatch watch(limits, 1024);
  SetupWatch setup(&watch);
  const WordBoard<W> board(c, &setup);
  if (setup.hit() != StopReason::none) return {.gave_up = true, .limit = setup.hit()};
  WordSearch<W> policy(board, nullptr, false, true);
  return count_all(policy, watch);
}

// fn(std::integral_constant<int, W>) with the words per row W of `c`'s residual (1 up to 64
// free rows, else 2); std::invalid_argument beyond kBitboardMaxFree.
template <class Fn>
auto by_words(const Composition& c, Fn&& fn) {
  const Index f = c.n() - c.k();
  if (f > kBitboardMaxFree)
    throw std::invalid_argument("engine 'bitboard' takes at most " + std::to_string(kBitboardMaxFree) +
                                " free rows, got " + std::to_string(f));
  return f <= 64 ? fn(std::integral_constant<int, 1>{}) : fn(std::integral_constant<int, 2>{});
}

}  // namespace

Result complete_bitboard(const Composition& c, Rng& rng, const Limits& limits, const BitboardParams& params) {
  return by_words(c, [&](auto w) { return solve<w()>(c, rng, limits, params); });
}

CountResult count_bitboard(const Composition& c, const Limits& limits) {
  return by_words(c, [&](auto w) { return count<w()>(c, limits); });
}

}  // namespace nqc
