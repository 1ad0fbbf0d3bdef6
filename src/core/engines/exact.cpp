#include "core/engines/exact.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string_view>

#include "core/limit_watch.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {


// The reduced board: free rows (index a) x free columns (index b). A cell is free when its
// row and column are open and neither of its diagonals is closed. Diagonal indices are those
// of the full board, d1 = r - c + n - 1 and d2 = r + c (0-based r, c), so that queens of the
// composition close them once at set-up.
class ReducedBoard {
 public:
  explicit ReducedBoard(const Composition& c) : n_(c.n()) {
    const auto un = static_cast<std::size_t>(n_);
    d1_closed_.assign(2 * un, 0);
    d2_closed_.assign(2 * un, 0);
    for (Index r = 0; r < n_; ++r)
      if (const Index j = c.q[static_cast<std::size_t>(r)]; j != 0) {
        d1_closed_[d1(r, j - 1)] = 1;
        d2_closed_[d2(r, j - 1)] = 1;
      }
    close_excluded_diagonals(c, d1_closed_, d2_closed_);
    FreeLines free = free_lines(c);
    rows_ = std::move(free.rows);
    cols_ = std::move(free.cols);
    col_index_.assign(un, -1);
    for (std::size_t b = 0; b < cols_.size(); ++b) col_index_[static_cast<std::size_t>(cols_[b])] = static_cast<Index>(b);
    const std::size_t f = rows_.size();
    row_open_.assign(f, 1);
    col_open_.assign(f, 1);
    row_free_.assign(f, 0);
    col_free_.assign(f, 0);
    d1_free_.assign(2 * un, 0);
    d2_free_.assign(2 * un, 0);
    open_rows_.resize(f);
    open_pos_.resize(f);
    for (std::size_t a = 0; a < f; ++a) {
      open_rows_[a] = static_cast<Index>(a);
      open_pos_[a] = static_cast<Index>(a);
    }
  }

  /// Counts the free cells of every row, column and diagonal: O(f^2), the set-up cost, so it
  /// polls the stop flag and time limit every 64 rows. Returns the limit hit, or "".
  const char* count_free_cells(const LimitWatch& watch) {
    for (Index a = 0; a < free_count(); ++a) {
      if ((a & 63) == 63)
        if (const char* hit = watch.poll(); *hit != '\0') return hit;
      for (Index b = 0; b < free_count(); ++b)
        if (is_free(a, b)) count_cell(a, b, +1);
    }
    return "";
  }

  [[nodiscard]] Index free_count() const { return static_cast<Index>(rows_.size()); }
  [[nodiscard]] Index open_row_count() const { return static_cast<Index>(open_rows_.size()); }
  [[nodiscard]] Index board_row(Index a) const { return rows_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index board_col(Index b) const { return cols_[static_cast<std::size_t>(b)]; }

  /// True when some open row or open column has no free cell left.
  [[nodiscard]] bool dead_at_root() const {
    for (Index a = 0; a < free_count(); ++a)
      if (row_free_[static_cast<std::size_t>(a)] == 0) return true;
    for (Index b = 0; b < free_count(); ++b)
      if (col_free_[static_cast<std::size_t>(b)] == 0) return true;
    return false;
  }

  /// Places a queen on free cell (a, b) and closes every cell it attacks in the open rows.
  /// Returns false when this leaves an open row or an open column without a free cell
  /// (forward checking); the placement is made either way and must be undone by undo(a, b).
  bool place(Index a, Index b) {
    dead_ = false;
    sweep(a, b, -1);
    row_open_[static_cast<std::size_t>(a)] = 0;
    col_open_[static_cast<std::size_t>(b)] = 0;
    d1_closed_[d1(board_row(a), board_col(b))] = 1;
    d2_closed_[d2(board_row(a), board_col(b))] = 1;
    remove_open_row(a);
    return !dead_;
  }

  /// Exactly reverts place(a, b); calls must nest (last placed, first undone). The cells to
  /// reopen are recounted rather than kept on a trail: once the lines of (a, b) are open
  /// again, the free cells on them are exactly those that place(a, b) closed.
  void undo(Index a, Index b) {
    restore_open_row(a);
    row_open_[static_cast<std::size_t>(a)] = 1;
    col_open_[static_cast<std::size_t>(b)] = 1;
    d1_closed_[d1(board_row(a), board_col(b))] = 0;
    d2_closed_[d2(board_row(a), board_col(b))] = 0;
    sweep(a, b, +1);
  }

  /// Minimum-remaining-values: the open row with the fewest free cells, ties uniformly at
  /// random. Requires open_row_count() > 0.
  Index choose_row(Rng* rng) const {
    Index best = open_rows_.front();
    Index ties = 0;
    for (Index a : open_rows_) {
      const Index fa = row_free_[static_cast<std::size_t>(a)];
      const Index fb = row_free_[static_cast<std::size_t>(best)];
      if (fa < fb) {
        best = a;
        ties = 1;
      } else if (fa == fb && rng != nullptr && rng->below(static_cast<std::uint64_t>(++ties)) == 0) {
        best = a;
      }
    }
    return best;
  }

  /// Appends the free cells (column indices b) of open row a to `out`, least damage first,
  /// ties in random order when rng is given. Damage of a cell: free cells on its column and
  /// its two diagonals (000_*, "minimum damage rule").
  void candidates(Index a, Rng* rng, std::vector<Index>& out) {
    const std::size_t first = out.size();
    for (Index b = 0; b < free_count(); ++b)
      if (is_free(a, b)) out.push_back(b);
    auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
    if (rng == nullptr) return;  // counting visits every cell: order does not matter
    shuffle(begin, out.end(), *rng);
    const Index r = board_row(a);
    std::stable_sort(begin, out.end(), [&](Index x, Index y) { return damage(r, x) < damage(r, y); });
  }

 private:
  [[nodiscard]] std::size_t d1(Index r, Index c) const { return static_cast<std::size_t>(r - c + n_ - 1); }
  [[nodiscard]] static std::size_t d2(Index r, Index c) { return static_cast<std::size_t>(r + c); }

  [[nodiscard]] bool is_free(Index a, Index b) const {
    if (!row_open_[static_cast<std::size_t>(a)] || !col_open_[static_cast<std::size_t>(b)]) return false;
    const Index r = board_row(a), c = board_col(b);
    return !d1_closed_[d1(r, c)] && !d2_closed_[d2(r, c)];
  }

  [[nodiscard]] Index damage(Index r, Index b) const {
    const Index c = board_col(b);
    return col_free_[static_cast<std::size_t>(b)] + d1_free_[d1(r, c)] + d2_free_[d2(r, c)];
  }

  void count_cell(Index a, Index b, Index delta) {
    const Index r = board_row(a), c = board_col(b);
    const Index rf = row_free_[static_cast<std::size_t>(a)] += delta;
    const Index cf = col_free_[static_cast<std::size_t>(b)] += delta;
    d1_free_[d1(r, c)] += delta;
    d2_free_[d2(r, c)] += delta;
    if (delta < 0 && (rf == 0 || cf == 0)) dead_cell(a, b, rf, cf);
  }

  // A count reached zero while placing on (placing_a_, placing_b_): dead unless it is the
  // row or column being filled by that placement.
  void dead_cell(Index a, Index b, Index rf, Index cf) {
    if ((rf == 0 && a != placing_a_) || (cf == 0 && b != placing_b_)) dead_ = true;
  }

  // Visits every free cell attacked by a queen on (a, b) in the open rows, (a, b) included,
  // and adds `delta` to its counts.
  void sweep(Index a, Index b, Index delta) {
    placing_a_ = a;
    placing_b_ = b;
    for (Index b2 = 0; b2 < free_count(); ++b2)
      if (is_free(a, b2)) count_cell(a, b2, delta);
    const Index r = board_row(a), c = board_col(b);
    for (Index a2 : open_rows_) {
      if (a2 == a) continue;
      const Index shift = board_row(a2) - r;
      if (is_free(a2, b)) count_cell(a2, b, delta);
      for (Index c2 : {c + shift, c - shift}) {
        if (c2 < 0 || c2 >= n_) continue;
        const Index b2 = col_index_[static_cast<std::size_t>(c2)];
        if (b2 >= 0 && is_free(a2, b2)) count_cell(a2, b2, delta);
      }
    }
  }

  void remove_open_row(Index a) {
    const Index p = open_pos_[static_cast<std::size_t>(a)];
    const Index last = open_rows_.back();
    open_rows_[static_cast<std::size_t>(p)] = last;
    open_pos_[static_cast<std::size_t>(last)] = p;
    open_rows_.pop_back();
  }
  // Inverse of remove_open_row(a) when undone in LIFO order.
  void restore_open_row(Index a) {
    const Index p = open_pos_[static_cast<std::size_t>(a)];
    if (p == static_cast<Index>(open_rows_.size())) {
      open_rows_.push_back(a);
      return;
    }
    const Index moved = open_rows_[static_cast<std::size_t>(p)];
    open_rows_.push_back(moved);
    open_pos_[static_cast<std::size_t>(moved)] = static_cast<Index>(open_rows_.size() - 1);
    open_rows_[static_cast<std::size_t>(p)] = a;
  }

  Index n_;
  std::vector<Index> rows_, cols_, col_index_;
  std::vector<std::uint8_t> d1_closed_, d2_closed_, row_open_, col_open_;
  std::vector<Index> row_free_, col_free_, d1_free_, d2_free_;
  std::vector<Index> open_rows_, open_pos_;
  Index placing_a_ = -1, placing_b_ = -1;
  bool dead_ = false;
};

// A node costs O(f) on f free rows: large boards poll the clock more often (every node from
// 4096 free rows on) so that a time limit stops within a few node costs.
std::uint64_t poll_interval(Index free_rows) { return free_rows >= 4096 ? 1 : free_rows >= 256 ? 16 : 1024; }

struct Frame {
  Index row;              // reduced row index a
  std::size_t next, end;  // range of untried candidates in the pool
  std::size_t begin;      // pool offset to truncate to on pop
  Index placed = -1;      // reduced column index of the queen standing in `row`, or -1
};

// The search loop shared by completion (stop at the first solution) and counting.
// Returns the limit name when stopped by a limit, else "".
// `restart_at`: a node count at which to stop with "restart" (0: never), below the limits.
// A search stopped by a limit or a restart takes its queens back off the board first.
template <class OnSolution>
const char* search(ReducedBoard& board, Rng* rng, LimitWatch& watch, Counters& counters,
                   std::uint64_t restart_at, OnSolution&& on_solution) {
  std::vector<Frame> stack;
  std::vector<Index> pool;
  stack.reserve(static_cast<std::size_t>(board.free_count()) + 1);
  const auto push_row = [&] {
    const Index a = board.choose_row(rng);
    const std::size_t begin = pool.size();
    board.candidates(a, rng, pool);
    stack.push_back({a, begin, pool.size(), begin});
  };
  push_row();
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.placed >= 0) {
      board.undo(top.row, top.placed);
      top.placed = -1;
      ++counters.backtracks;
    }
    if (top.next == top.end) {
      pool.resize(top.begin);
      stack.pop_back();
      continue;
    }
    const char* hit = watch.check(counters.nodes);
    if (*hit == '\0' && restart_at != 0 && counters.nodes >= restart_at) hit = "restart";
    if (*hit != '\0') {
      for (auto f = stack.rbegin(); f != stack.rend(); ++f)
        if (f->placed >= 0) board.undo(f->row, f->placed);
      return hit;
    }
    const Index b = pool[top.next++];
    ++counters.nodes;
    top.placed = b;
    if (!board.place(top.row, b)) continue;
    if (board.open_row_count() == 0) {
      if (on_solution(stack)) return "";
      continue;
    }
    push_row();
  }
  return "";
}

// The Luby sequence, 1-based: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ...
std::uint64_t luby(std::uint64_t i) {
  for (std::uint64_t k = 1; k < 64; ++k) {
    const std::uint64_t full = (std::uint64_t{1} << k) - 1;
    if (i == full) return std::uint64_t{1} << (k - 1);
    if (i < full) return luby(i - ((std::uint64_t{1} << (k - 1)) - 1));
  }
  return std::uint64_t{1} << 62;
}

}  // namespace

Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits,
                      Counters counters) {
  if (const Verdict v = verify(composition); !v.ok())
    throw std::invalid_argument("inconsistent composition: " + v.describe(composition));
  Result result;
  LimitWatch watch(limits, poll_interval(composition.n() - composition.k()));
  ReducedBoard board(composition);
  if (board.free_count() == 0) {
    result.outcome = Outcome::solved;
    result.solution = composition;
    result.counters = counters;
    return result;
  }
  if (const char* hit = board.count_free_cells(watch); *hit != '\0') {
    result.outcome = Outcome::gave_up;
    result.limit = hit;
    result.counters = counters;
    return result;
  }
  if (board.dead_at_root()) {
    result.outcome = Outcome::infeasible;
    result.counters = counters;
    return result;
  }
  // Randomized restarts (Gomes, Selman, Kautz, "Boosting combinatorial search through
  // randomization", AAAI 1998) with node budgets in the Luby sequence 1, 1, 2, 1, 1, 2, 4, ...
  // times 2f + 256 (Luby, Sinclair, Zuckerman 1993: within a log factor of the best fixed
  // budget): depth-first search on queens has a heavy tail (one MRV run on the empty n = 1000
  // board spent 2*10^7 nodes without a solution, while most random tie-breaks need about n;
  // doubling budgets still took 3 s on some derived n = 1000 cases). Every run is complete
  // within its budget and budgets grow without bound, so exhausting the space in any run
  // proves infeasibility: the search as a whole stays complete.
  const std::uint64_t unit = 2 * static_cast<std::uint64_t>(board.free_count()) + 256;
  for (std::uint64_t run = 1;; ++run) {
    const std::uint64_t budget = unit * luby(run);
    const char* hit = search(board, &rng, watch, counters, counters.nodes + budget, [&](const std::vector<Frame>& stack) {
      result.solution = composition;
      for (const Frame& f : stack)
        result.solution.q[static_cast<std::size_t>(board.board_row(f.row))] = board.board_col(f.placed) + 1;
      result.outcome = Outcome::solved;
      counters.placed_search += stack.size();
      return true;  // the frames still hold their queens: the last placement is no backtrack
    });
    if (result.outcome == Outcome::solved) break;
    if (std::string_view(hit) == "restart") {
      ++counters.restarts;
      continue;
    }
    result.outcome = (*hit != '\0') ? Outcome::gave_up : Outcome::infeasible;
    result.limit = hit;
    break;
  }
  result.counters = counters;
  return result;
}

CountResult count_completions_reduced(const Composition& composition, const Limits& limits) {
  CountResult out;
  LimitWatch watch(limits, poll_interval(composition.n() - composition.k()));
  ReducedBoard board(composition);
  if (board.free_count() == 0) {
    out.completions = 1;
    return out;
  }
  if (const char* hit = board.count_free_cells(watch); *hit != '\0') {
    out.gave_up = true;
    out.limit = hit;
    return out;
  }
  if (board.dead_at_root()) return out;
  Counters counters;
  const char* hit = search(board, nullptr, watch, counters, 0, [&](const std::vector<Frame>&) {
    ++out.completions;
    return false;
  });
  out.nodes = counters.nodes;
  out.gave_up = *hit != '\0';
  out.limit = hit;
  return out;
}

}  // namespace nqc
