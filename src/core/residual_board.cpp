#include "core/residual_board.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace nqc {
namespace {

// Boards of at most this many cells (some 50 MB while built) are built without asking the
// system how much memory is left.
constexpr std::uint64_t kSmallBoardCells = std::uint64_t{1} << 20;

std::uint64_t product(std::int64_t a, std::int64_t b) {
  return static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
}

// The slots of renumber's table for `cells` cells on an n x n board: a power of two at least
// twice the distinct diagonals of one direction, at most min(cells, 2n - 1).
std::uint64_t table_slots(Index n, std::uint64_t cells) {
  const std::uint64_t keys = std::min<std::uint64_t>(cells, 2 * static_cast<std::uint64_t>(std::max<Index>(n, 1)) - 1);
  std::uint64_t size = 16;
  while (size < 2 * keys) size *= 2;
  return size;
}

}  // namespace

std::uint64_t ResidualBoard::build_bytes(Index n, std::uint64_t cells) {
  const std::uint64_t lines = std::min<std::uint64_t>(cells, 2 * static_cast<std::uint64_t>(std::max<Index>(n, 1)) - 1);
  const std::uint64_t table = saturating_mul(16, table_slots(n, cells));
  const std::uint64_t lists = saturating_add(saturating_mul(12, cells), saturating_mul(16, lines));
  return saturating_add(saturating_mul(16, cells), std::max(table, lists));
}

void ResidualBoard::require_fits(Index n, Index rows, Index cols, std::uint64_t min_cells, std::uint64_t other_bytes,
                                 const MemoryRoom* room) {
  const std::string board =
      "the residual board of " + std::to_string(rows) + " free rows x " + std::to_string(cols) + " free columns";
  if (min_cells > kMaxResidualCells)
    throw CapacityError(board + " has at least " + std::to_string(min_cells) + " free cells, more than the " +
                        std::to_string(kMaxResidualCells) + " a residual board holds (32-bit cell ids)");
  const std::uint64_t bytes = saturating_add(build_bytes(n, min_cells), other_bytes);
  const std::string what = board + " (at least " + std::to_string(min_cells) + " free cells" +
                           (other_bytes != 0 ? ", with the line sets and lists of its set-up" : "") + ")";
  require_memory(bytes, what, room);
}

StopReason ResidualBoard::build(const Composition& c, bool check_columns, const LimitWatch* watch) {
  SetupWatch setup(watch);
  if (setup.stopped()) return setup.hit();
  const Index n = c.n();
  // Before any O(n) allocation: f free rows keep at least f (f - closed) cells, each queen and
  // excluded diagonal closing at most one cell of a row.
  const Index* q = c.q.data();
  std::int64_t f = 0;
  if (!setup.chunks(n, [&](std::int64_t from, std::int64_t to) {
        for (std::int64_t r = from; r < to; ++r) f += q[r] == 0 ? 1 : 0;
      }))
    return setup.hit();
  const auto closed = 2 * (static_cast<std::int64_t>(n) - f) + static_cast<std::int64_t>(c.excluded_difference.size()) +
                      static_cast<std::int64_t>(c.excluded_sum.size());
  const std::uint64_t at_least = f > closed ? product(f, f - closed) : 0;
  // Beside the cells: 5n bits of line sets and the lists of free rows and columns.
  const std::uint64_t lines = 5 * static_cast<std::uint64_t>(n) / 8 + 8 * static_cast<std::uint64_t>(f);
  require_fits(n, static_cast<Index>(f), static_cast<Index>(f), at_least, lines);

  Bitset used, diff, sum;
  close_lines(c, used, diff, sum, &setup);
  if (setup.hit() != StopReason::none) return setup.hit();
  std::vector<Index> rows = free_rows_of(c, &setup);
  std::vector<Index> cols = free_columns_of(used, n, &setup);
  if (setup.hit() != StopReason::none) return setup.hit();
  return build(n, std::move(rows), std::move(cols), diff, sum, check_columns, watch);
}

StopReason ResidualBoard::build(Index n, std::vector<Index> rows, std::vector<Index> cols, const Bitset& diff_closed,
                                const Bitset& sum_closed, bool check_columns, const LimitWatch* watch) {
  SetupWatch setup(watch);
  n_ = n;
  check_columns_ = check_columns;
  rows_ = std::move(rows);
  cols_ = std::move(cols);
  const auto f = static_cast<Index>(rows_.size());
  const auto fc = static_cast<Index>(cols_.size());
  cells_.clear();
  if (setup.stopped()) return setup.hit();
  // The scan of the f x fc cells, cell(a, b) for each free one; polled by cells examined (a row of
  // 10^7 columns is seconds of work). False when a limit stopped it.
  const auto scan = [&](auto&& cell) {
    std::uint64_t examined = 0;
    for (Index a = 0; a < f; ++a) {
      const Index r = rows_[static_cast<std::size_t>(a)];
      for (Index b = 0; b < fc; ++b) {
        if (watch != nullptr && (++examined & 0xFFFF) == 0 && setup.stopped()) return false;
        const Index col = cols_[static_cast<std::size_t>(b)];
        const std::size_t d1 = diff_line(n, r, col), d2 = sum_line(r, col);
        if (diff_closed.test(d1) || sum_closed.test(d2)) continue;
        cell(a, b);
      }
    }
    return true;
  };
  if (!reserve_cells(diff_closed, sum_closed, scan)) return setup.hit();
  row_begin_.assign(static_cast<std::size_t>(f) + 1, 0);
  Index row = -1;
  if (!scan([&](Index a, Index b) {
        while (row < a) row_begin_[static_cast<std::size_t>(++row)] = static_cast<Index>(cells_.size());
        cells_.push_back({a, b, 0, 0});
      }))
    return setup.hit();
  while (row < f) row_begin_[static_cast<std::size_t>(++row)] = static_cast<Index>(cells_.size());
  index_lines();
  return StopReason::none;
}

// A board that may not fit is refused at once when f x (fc - closed diagonals) cells would not
// fit, else counted first (nothing allocated) and allocated exactly. False when stopped.
template <class Scan>
bool ResidualBoard::reserve_cells(const Bitset& diff_closed, const Bitset& sum_closed, Scan&& scan) {
  const auto f = static_cast<Index>(rows_.size());
  const auto fc = static_cast<Index>(cols_.size());
  if (const std::uint64_t most = product(f, fc); most > kSmallBoardCells) {
    const MemoryRoom room = memory_room();
    const auto fits = [&](std::uint64_t cells) {
      return cells <= kMaxResidualCells && build_bytes(n_, cells) <= room.bytes;
    };
    if (!fits(most) || saturating_add(build_bytes(n_, most), saturating_mul(32, most)) > room.bytes) {
      const std::uint64_t closed = diff_closed.count() + sum_closed.count();
      const auto columns = static_cast<std::uint64_t>(fc);
      require_fits(n_, f, fc, columns > closed ? static_cast<std::uint64_t>(f) * (columns - closed) : 0, 0, &room);
      std::uint64_t count = 0;
      if (!scan([&](Index, Index) {
            if ((++count & 0xFFFF) == 0 && !fits(count)) require_fits(n_, f, fc, count, 0, &room);
          }))
        return false;
      require_fits(n_, f, fc, count, 0, &room);
      cells_.reserve(count);
    }
  }
  return true;
}

// The lines of the cells just stored: compact diagonal ids, each line's list of cells, every
// line open with all its cells free.
void ResidualBoard::index_lines() {
  const auto f = static_cast<Index>(rows_.size());
  const auto fc = static_cast<Index>(cols_.size());
  const Index d1_count =
      renumber([&](const Cell& cell) { return diff_line(n_, board_row(cell.a), board_col(cell.b)); }, &Cell::d1);
  const Index d2_count =
      renumber([&](const Cell& cell) { return sum_line(board_row(cell.a), board_col(cell.b)); }, &Cell::d2);
  if (slots_.capacity() > kSmallBoardCells) std::vector<std::pair<std::uint64_t, Index>>().swap(slots_);
  bucket(&Cell::b, fc, col_begin_, col_cells_);
  bucket(&Cell::d1, d1_count, d1_begin_, d1_cells_);
  bucket(&Cell::d2, d2_count, d2_begin_, d2_cells_);
  if (fill_.capacity() > kSmallBoardCells) std::vector<Index>().swap(fill_);

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

// Sets `field` of every cell to a compact id of its diagonal key(cell), in order of first
// appearance; returns their number. An open-addressing table keeps it O(cells) whatever n.
template <class Key>
Index ResidualBoard::renumber(Key key_of, Index Cell::*field) {
  constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  const auto size = static_cast<std::size_t>(table_slots(n_, cells_.size()));
  slots_.assign(size, {kEmpty, 0});
  Index next = 0;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const std::uint64_t key = key_of(cells_[i]);
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
  for (Index e = 0; e < cell_count(); ++e)
    cells[static_cast<std::size_t>(fill_[static_cast<std::size_t>(cell(e).*field)]++)] = e;
}

}  // namespace nqc
