// The residual board of a composition: its free rows x free columns as the list of the free
// cells ([Grigoryan]'s reduced matrix), shared by grigoryan's final stage, exact and sat.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/composition.hpp"
#include "core/limit_watch.hpp"
#include "core/lines.hpp"

namespace nqc {

/// The most free cells a residual board holds: cell ids are 32-bit (Index).
inline constexpr std::uint64_t kMaxResidualCells = 2147483647;

/// Free rows x free columns of a board, as the list of the cells no queen attacks (they never
/// reopen while it lives). Each cell has its reduced row a, column b and compact diagonal ids,
/// so memory is O(free cells + free rows) whatever n. Every line lists its cells, so a
/// placement visits only its four lines, with incremental free counts per line. Placements
/// nest: undo() the last place() first.
class ResidualBoard {
 public:
  struct Cell {
    Index a, b, d1, d2;  ///< reduced row, reduced column, compact diagonal ids
  };

  /// Builds the board of `rows` x `cols` (board indices, ascending) of an n x n board whose
  /// closed diagonals are `diff_closed` (diff_line) and `sum_closed` (sum_line); cells numbered
  /// row by row. With `check_columns`, place() also fails on an open column without a free cell.
  /// With `watch`, polled; returns the limit hit (the board then unusable), else none. Refuses
  /// (CapacityError) before allocating what it can never hold: more than kMaxResidualCells
  /// cells, or build_bytes() beyond memory_room() (counting the cells first when in doubt).
  StopReason build(Index n, std::vector<Index> rows, std::vector<Index> cols, const Bitset& diff_closed,
                   const Bitset& sum_closed, bool check_columns, const LimitWatch* watch = nullptr);

  /// build() for the residual of consistent composition `c` (its queens' and excluded
  /// diagonals closed): O(n) time and 5n bits beside, polled. Refuses (CapacityError) before any
  /// O(n) allocation a residual that can never be held (f free rows keep at least
  /// f (f - 2k - excluded diagonals) cells). std::invalid_argument when inconsistent.
  StopReason build(const Composition& c, bool check_columns, const LimitWatch* watch = nullptr);

  /// The most memory a residual board of `cells` free cells holds while built.
  static std::uint64_t build_bytes(Index n, std::uint64_t cells);

  /// Throws CapacityError naming the board, the bound and the limit when a residual of `rows` x
  /// `cols` with at least `min_cells` cells (and `other_bytes` beside) can never be held. `room`:
  /// as measured before (default: now, for large requests).
  static void require_fits(Index n, Index rows, Index cols, std::uint64_t min_cells, std::uint64_t other_bytes = 0,
                           const MemoryRoom* room = nullptr);

  [[nodiscard]] Index free_rows() const { return static_cast<Index>(rows_.size()); }
  [[nodiscard]] Index cell_count() const { return static_cast<Index>(cells_.size()); }
  [[nodiscard]] const Cell& cell(Index e) const { return cells_[static_cast<std::size_t>(e)]; }
  /// Board row and column (0-based) of reduced row a and reduced column b.
  [[nodiscard]] Index board_row(Index a) const { return rows_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index board_col(Index b) const { return cols_[static_cast<std::size_t>(b)]; }
  /// The cells of reduced row a: ids row_cells_begin(a) .. row_cells_end(a) - 1.
  [[nodiscard]] Index row_cells_begin(Index a) const { return row_begin_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index row_cells_end(Index a) const { return row_begin_[static_cast<std::size_t>(a) + 1]; }

  /// The cells of column b, and of compact diagonal id d in each direction (ids 0 ..
  /// diff_lines() - 1 and 0 .. sum_lines() - 1): the lines as the SAT encoding needs them.
  [[nodiscard]] std::span<const Index> column_cells(Index b) const { return line(col_begin_, col_cells_, b); }
  [[nodiscard]] Index diff_lines() const { return static_cast<Index>(d1_begin_.size()) - 1; }
  [[nodiscard]] Index sum_lines() const { return static_cast<Index>(d2_begin_.size()) - 1; }
  [[nodiscard]] std::span<const Index> diff_cells(Index d) const { return line(d1_begin_, d1_cells_, d); }
  [[nodiscard]] std::span<const Index> sum_cells(Index d) const { return line(d2_begin_, d2_cells_, d); }

  [[nodiscard]] Index open_rows() const { return open_count_; }
  [[nodiscard]] bool row_open(Index a) const { return row_open_[static_cast<std::size_t>(a)] != 0; }
  /// The free cells now of open row a.
  [[nodiscard]] Index row_free(Index a) const { return row_free_[static_cast<std::size_t>(a)]; }
  /// True when cell e is free now (its row, column and diagonals are open).
  [[nodiscard]] bool is_free(Index e) const {
    const Cell& c = cell(e);
    return row_open_[static_cast<std::size_t>(c.a)] && col_open_[static_cast<std::size_t>(c.b)] &&
           d1_open_[static_cast<std::size_t>(c.d1)] && d2_open_[static_cast<std::size_t>(c.d2)];
  }
  /// Damage of cell e ([Grigoryan], "minimum damage rule"): the free cells now on its column and
  /// its two diagonals (the cell itself counted on each).
  [[nodiscard]] Index damage(Index e) const {
    const Cell& c = cell(e);
    return col_free_[static_cast<std::size_t>(c.b)] + d1_free_[static_cast<std::size_t>(c.d1)] +
           d2_free_[static_cast<std::size_t>(c.d2)];
  }
  /// True when an open row (or, with check_columns, column) has no free cell.
  [[nodiscard]] bool has_dead_line() const;

  /// Places a queen on free cell e and closes every cell it attacks. Returns false when this
  /// leaves another open row (or, with check_columns, another open column) without a free
  /// cell: the look-ahead of [Grigoryan]'s block 5, forward checking in `exact`. The placement
  /// stands either way and is taken back by undo(e).
  bool place(Index e);
  /// Exactly reverts place(e) when undone last-placed first: once the four lines are open
  /// again, the free cells on them are exactly those that place(e) closed, so no trail.
  void undo(Index e);

 private:
  static std::span<const Index> line(const std::vector<Index>& begin, const std::vector<Index>& cells, Index i) {
    const auto from = static_cast<std::size_t>(begin[static_cast<std::size_t>(i)]);
    const auto to = static_cast<std::size_t>(begin[static_cast<std::size_t>(i) + 1]);
    return {cells.data() + from, to - from};
  }
  template <class Scan>
  bool reserve_cells(const Bitset& diff_closed, const Bitset& sum_closed, Scan&& scan);
  void index_lines();
  void count(Index e, Index delta);
  void visit_lines(Index e, const Cell& c, Index delta);
  void visit_list(Index e, const std::vector<Index>& begin, const std::vector<Index>& cells, Index line, Index delta);
  template <class Key>
  Index renumber(Key key, Index Cell::*field);
  void bucket(Index Cell::*field, Index lines, std::vector<Index>& begin, std::vector<Index>& cells);

  Index n_ = 0;
  std::vector<Index> rows_, cols_;
  std::vector<Cell> cells_;
  std::vector<Index> row_begin_, col_begin_, col_cells_, d1_begin_, d1_cells_, d2_begin_, d2_cells_;
  std::vector<std::uint8_t> row_open_, col_open_, d1_open_, d2_open_;
  std::vector<Index> row_free_, col_free_, d1_free_, d2_free_;
  std::vector<std::pair<std::uint64_t, Index>> slots_;  // renumber's table
  std::vector<Index> fill_;
  Index open_count_ = 0;
  Index placing_row_ = -1, placing_col_ = -1;
  bool check_columns_ = false;
  bool dead_ = false;
};

}  // namespace nqc
