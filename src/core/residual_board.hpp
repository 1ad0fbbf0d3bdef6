// The residual board of a composition: its free rows x free columns, kept as the list of the
// free cells (the reduced matrix L of [Grigoryan]'s blocks 2 and 4). Shared by the final stage of
// `grigoryan` and the complete search of `exact`.
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

/// Free rows x free columns of a board, as the list of the cells that no queen attacks
/// (cells attacked when it is built can never reopen while it lives, so they are left out).
/// Each cell has its reduced row a (index into rows()), reduced column b (index into cols())
/// and compact diagonal ids ([Grigoryan]'s control vectors D1, D2 renumbered over the diagonals that
/// hold a free cell), so memory is O(free cells + free rows) whatever n: the residual of
/// n = 10^9 with 518 free rows costs a few MB. Every line (row, column, both diagonals) lists
/// its cells, so a placement visits only the cells on its four lines, with incremental free
/// counts per row, column and diagonal (the minimum-risk and minimum-damage rules read them).
/// Placements nest: undo() the last place() first.
class ResidualBoard {
 public:
  struct Cell {
    Index a, b, d1, d2;  ///< reduced row, reduced column, compact diagonal ids
  };

  /// Builds the board of `rows` x `cols` (board indices, both ascending, equally many) of an
  /// n x n board whose closed diagonals are marked in `diff_closed` (index diff_line) and
  /// `sum_closed` (index sum_line). Cells are numbered row by row, columns ascending. O(f^2)
  /// bit tests on f free rows. With `check_columns`, place() also reports an open column
  /// left without a free cell.
  /// With `watch`, the scan polls the stop flag and the time limit at its start and every 2^16
  /// cells examined and returns the limit hit (the board is then unusable), else
  /// StopReason::none.
  /// Refuses what it can never hold before allocating it (CapacityError, core/limit_watch.hpp):
  /// more free cells than kMaxResidualCells, or more than build_bytes() beyond what the process
  /// can get (memory_room()). When f x fc cells might not fit, it refuses at once if at least
  /// f x (fc - closed diagonals) of them would not (a closed diagonal takes at most one cell of
  /// a row), else counts them first (the same polled scan, nothing allocated), refusing as soon
  /// as the count passes what fits, and then allocates exactly that many.
  StopReason build(Index n, std::vector<Index> rows, std::vector<Index> cols, const Bitset& diff_closed,
                   const Bitset& sum_closed, bool check_columns, const LimitWatch* watch = nullptr);

  /// build() for the residual of consistent composition `c`: its free rows x free columns,
  /// with the diagonals closed by its queens and those it excludes (CSPLib prob079). O(n)
  /// time and 5n bits on top of the board, every pass polled as above (kSetupChunk rows
  /// apart). Before any O(n) allocation it refuses (CapacityError) a residual that can never
  /// be held: f free rows keep at least f x (f - 2k - excluded diagonals) free cells (the
  /// empty board of n > 46340 has more than kMaxResidualCells). Throws std::invalid_argument
  /// for an inconsistent composition.
  StopReason build(const Composition& c, bool check_columns, const LimitWatch* watch = nullptr);

  /// The most memory a residual board of `cells` free cells on an n x n board holds while it is
  /// built (its cells allocated at once): the cells (16 bytes each), then the larger of the
  /// table that renumbers the diagonals (16 bytes a slot, a power of two at least twice the
  /// distinct diagonals, at most min(cells, 2n - 1)) and the lines' lists (12 bytes per cell and
  /// 16 per diagonal).
  static std::uint64_t build_bytes(Index n, std::uint64_t cells);

  /// Throws CapacityError when a residual board of `rows` free rows x `cols` free columns on an
  /// n x n board with at least `min_cells` free cells (and `other_bytes` allocated beside it)
  /// can never be held: more cells than kMaxResidualCells, or build_bytes() beyond what
  /// memory_room() offers. The message names the board, the bound and the limit, e.g. "the
  /// residual board of 100000 free rows x 100000 free columns has at least 10000000000 free
  /// cells, more than the 2147483647 a residual board holds (32-bit cell ids)".
  /// `room`: the memory left as measured before (default: measured now, for large requests).
  static void require_fits(Index n, Index rows, Index cols, std::uint64_t min_cells, std::uint64_t other_bytes = 0,
                           const MemoryRoom* room = nullptr);

  [[nodiscard]] Index free_rows() const { return static_cast<Index>(rows_.size()); }
  [[nodiscard]] Index cell_count() const { return static_cast<Index>(cells_.size()); }
  [[nodiscard]] const Cell& cell(Index e) const { return cells_[static_cast<std::size_t>(e)]; }
  /// Board row and column (0-based) of reduced row a and reduced column b.
  [[nodiscard]] Index board_row(Index a) const { return rows_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index board_col(Index b) const { return cols_[static_cast<std::size_t>(b)]; }
  /// Row a's cells are the ids [row_cells_begin(a), row_cells_end(a)), columns ascending.
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
  /// Free cells now in row a / column b.
  [[nodiscard]] Index row_free(Index a) const { return row_free_[static_cast<std::size_t>(a)]; }
  [[nodiscard]] Index col_free(Index b) const { return col_free_[static_cast<std::size_t>(b)]; }
  /// True when cell e is free now (its row, column and diagonals are open).
  [[nodiscard]] bool is_free(Index e) const {
    const Cell& c = cell(e);
    return row_open_[static_cast<std::size_t>(c.a)] && col_open_[static_cast<std::size_t>(c.b)] &&
           d1_open_[static_cast<std::size_t>(c.d1)] && d2_open_[static_cast<std::size_t>(c.d2)];
  }
  /// Damage of cell e ([Grigoryan], "minimum damage rule"): the free cells now on its column and
  /// its two diagonals (the cell itself counted on each, the same offset for every cell).
  [[nodiscard]] Index damage(Index e) const {
    const Cell& c = cell(e);
    return col_free_[static_cast<std::size_t>(c.b)] + d1_free_[static_cast<std::size_t>(c.d1)] +
           d2_free_[static_cast<std::size_t>(c.d2)];
  }
  /// True when some open row (or, with check_columns, open column) has no free cell.
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
