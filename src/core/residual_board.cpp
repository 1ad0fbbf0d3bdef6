#include "core/residual_board.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/verifier.hpp"

namespace nqc {

StopReason ResidualBoard::build(const Composition& c, bool check_columns, const LimitWatch* watch) {
  const Index n = c.n();
  Bitset used, diff, sum;
  if (!close_lines(c, used, diff, sum))
    throw std::invalid_argument("inconsistent composition: " + verify(c).describe(c));
  return build(n, free_rows_of(c), free_columns_of(used, n), diff, sum, check_columns, watch);
}

StopReason ResidualBoard::build(Index n, std::vector<Index> rows, std::vector<Index> cols, const Bitset& diff_closed,
                                 const Bitset& sum_closed, bool check_columns, const LimitWatch* watch) {
  check_columns_ = check_columns;
  rows_ = std::move(rows);
  cols_ = std::move(cols);
  const auto f = static_cast<Index>(rows_.size());
  cells_.clear();
  diff_keys_.clear();
  sum_keys_.clear();
  row_begin_.assign(static_cast<std::size_t>(f) + 1, 0);
  // The limits are polled by the cells examined (every 2^16), not by rows: a row of 10^7
  // columns is seconds of work and gigabytes of cells (`count 10000000 --time-limit 1` ran on).
  std::uint64_t examined = 0;
  for (Index a = 0; a < f; ++a) {
    row_begin_[static_cast<std::size_t>(a)] = static_cast<Index>(cells_.size());
    const Index r = rows_[static_cast<std::size_t>(a)];
    for (Index b = 0; b < static_cast<Index>(cols_.size()); ++b) {
      if (watch != nullptr && (++examined & 0xFFFF) == 0)
        if (const StopReason hit = watch->poll(); hit != StopReason::none) return hit;
      const Index c = cols_[static_cast<std::size_t>(b)];
      const std::size_t d1 = diff_line(n, r, c), d2 = sum_line(r, c);
      if (diff_closed.test(d1) || sum_closed.test(d2)) continue;
      cells_.push_back({a, b, 0, 0});
      diff_keys_.push_back(d1);
      sum_keys_.push_back(d2);
    }
  }
  row_begin_[static_cast<std::size_t>(f)] = static_cast<Index>(cells_.size());
  const Index d1_count = renumber(diff_keys_, &Cell::d1);
  const Index d2_count = renumber(sum_keys_, &Cell::d2);
  const auto fc = static_cast<Index>(cols_.size());
  bucket(&Cell::b, fc, col_begin_, col_cells_);
  bucket(&Cell::d1, d1_count, d1_begin_, d1_cells_);
  bucket(&Cell::d2, d2_count, d2_begin_, d2_cells_);

  row_open_.assign(static_cast<std::size_t>(f), 1);
  col_open_.assign(static_cast<std::size_t>(fc), 1);
  d1_open_.assign(static_cast<std::size_t>(d1_count), 1);
  d2_open_.assign(static_cast<std::size_t>(d2_count), 1);
  const auto sizes = [](const std::vector<Index>& begin, std::vector<Index>& out) {
    out.resize(begin.size() - 1);
    for (std::size_t i = 0; i + 1 < begin.size(); ++i) out[i] = begin[i + 1] - begin[i];
  };
  sizes(row_begin_, row_free_);
  sizes(col_begin_, col_free_);
  sizes(d1_begin_, d1_free_);
  sizes(d2_begin_, d2_free_);
  open_count_ = f;
  return StopReason::none;
}

bool ResidualBoard::has_dead_line() const {
  for (Index a = 0; a < free_rows(); ++a)
    if (row_open_[static_cast<std::size_t>(a)] && row_free_[static_cast<std::size_t>(a)] == 0) return true;
  if (check_columns_)
    for (std::size_t b = 0; b < cols_.size(); ++b)
      if (col_open_[b] && col_free_[b] == 0) return true;
  return false;
}

bool ResidualBoard::place(Index e) {
  const Cell c = cell(e);
  dead_ = false;
  placing_row_ = c.a;
  placing_col_ = c.b;
  // The four lines of (a, b) meet only in (a, b): every other cell is visited at most once.
  visit_lines(e, c, -1);
  row_open_[static_cast<std::size_t>(c.a)] = 0;
  col_open_[static_cast<std::size_t>(c.b)] = 0;
  d1_open_[static_cast<std::size_t>(c.d1)] = 0;
  d2_open_[static_cast<std::size_t>(c.d2)] = 0;
  --open_count_;
  return !dead_;
}

void ResidualBoard::undo(Index e) {
  const Cell c = cell(e);
  row_open_[static_cast<std::size_t>(c.a)] = 1;
  col_open_[static_cast<std::size_t>(c.b)] = 1;
  d1_open_[static_cast<std::size_t>(c.d1)] = 1;
  d2_open_[static_cast<std::size_t>(c.d2)] = 1;
  ++open_count_;
  visit_lines(e, c, +1);
}

void ResidualBoard::count(Index e, Index delta) {
  const Cell& c = cell(e);
  const Index rf = row_free_[static_cast<std::size_t>(c.a)] += delta;
  const Index cf = col_free_[static_cast<std::size_t>(c.b)] += delta;
  d1_free_[static_cast<std::size_t>(c.d1)] += delta;
  d2_free_[static_cast<std::size_t>(c.d2)] += delta;
  if (rf == 0 && c.a != placing_row_) dead_ = true;
  if (cf == 0 && check_columns_ && c.b != placing_col_) dead_ = true;
}

void ResidualBoard::visit_lines(Index e, const Cell& c, Index delta) {
  for (Index x = row_cells_begin(c.a); x < row_cells_end(c.a); ++x)
    if (is_free(x)) count(x, delta);
  visit_list(e, col_begin_, col_cells_, c.b, delta);
  visit_list(e, d1_begin_, d1_cells_, c.d1, delta);
  visit_list(e, d2_begin_, d2_cells_, c.d2, delta);
}

void ResidualBoard::visit_list(Index e, const std::vector<Index>& begin, const std::vector<Index>& cells, Index line,
                               Index delta) {
  for (Index i = begin[static_cast<std::size_t>(line)]; i < begin[static_cast<std::size_t>(line) + 1]; ++i) {
    const Index x = cells[static_cast<std::size_t>(i)];
    if (x != e && is_free(x)) count(x, delta);
  }
}

// Sets `field` of every cell to a compact id of its board diagonal in `keys`: 0 .. (number of
// distinct values) - 1 in order of first appearance; returns their number. An
// open-addressing table of about 2x the cells keeps it O(cells) in time and memory whatever n
// (a table over all 2n diagonals would cost O(n) per build, and sorting O(cells log cells)).
Index ResidualBoard::renumber(std::vector<std::uint64_t>& keys, Index Cell::*field) {
  constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  std::size_t size = 16;
  while (size < 2 * cells_.size()) size *= 2;
  slots_.assign(size, {kEmpty, 0});
  Index next = 0;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const std::uint64_t key = keys[i];
    std::size_t h = (key * 0x9E3779B97F4A7C15ULL) >> 32;
    for (h &= size - 1; slots_[h].first != kEmpty && slots_[h].first != key; h = (h + 1) & (size - 1)) {
    }
    if (slots_[h].first == kEmpty) slots_[h] = {key, next++};
    cells_[i].*field = slots_[h].second;
  }
  return next;
}

// Counting sort of the cell ids by `field` into (begin, cells), CSR style.
void ResidualBoard::bucket(Index Cell::*field, Index lines, std::vector<Index>& begin, std::vector<Index>& cells) {
  begin.assign(static_cast<std::size_t>(lines) + 1, 0);
  for (const Cell& c : cells_) ++begin[static_cast<std::size_t>(c.*field) + 1];
  for (std::size_t i = 1; i < begin.size(); ++i) begin[i] += begin[i - 1];
  cells.resize(cells_.size());
  fill_.assign(begin.begin(), begin.end() - 1);
  for (Index e = 0; e < cell_count(); ++e) cells[static_cast<std::size_t>(fill_[static_cast<std::size_t>(cell(e).*field)]++)] = e;
}

}  // namespace nqc
