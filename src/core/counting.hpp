// Counting the completions of a composition (Q(n) for the empty board).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/composition.hpp"
#include "core/engine.hpp"
#include "core/limit_watch.hpp"

namespace nqc {

/// The number of completions of a composition, and the work it took.
struct CountResult {
  std::uint64_t completions = 0;
  std::uint64_t nodes = 0;              ///< placements tried
  bool gave_up = false;                 ///< a limit stopped the count: `completions` is a lower bound
  StopReason limit = StopReason::none;  ///< which limit, when gave_up
};

/// Counts the completions of a consistent composition (the empty board: Q(n), OEIS A000170):
/// the empty board of n <= 64 by QueensCounter over queens_prefix_depth(n) prefixes, residuals
/// of at most kBitboardMaxFree free rows by count_bitboard, larger ones by
/// count_completions_reduced. Throws std::invalid_argument for an inconsistent composition, and
/// CapacityError ("cannot count the completions: ...") for a residual that can never be held.
/// Limits are polled from the start, the set-up included.
CountResult count_completions(const Composition& composition, const Limits& limits);

/// Refuses (CapacityError, "cannot count the empty N x N board: ...") in O(1) the count of the
/// empty n x n board when its residual board can never be held (n >= 46341, or the memory left).
void require_countable_empty_board(Index n);

/// Rows a QueensPrefix can hold: prefixes are at most this deep.
inline constexpr int kMaxPrefixRows = 8;

/// A unit of work of the empty-board count: the first `row` rows placed, in one of the
/// subproblems of QueensCounter (see there). Plain data, the same on every rank.
struct QueensPrefix {
  std::uint64_t left = 0;                           ///< columns attacked in row `row` along the diagonals r - c = const
  std::uint64_t down = 0;                           ///< columns taken
  std::uint64_t right = 0;                          ///< columns attacked in row `row` along r + c = const
  std::uint8_t corner = 0;                          ///< 1: the queen of row 0 is in column 0
  std::uint8_t bound1 = 0;                          ///< the subproblem's parameter (QueensCounter)
  std::uint8_t row = 0;                             ///< rows placed
  std::array<std::uint8_t, kMaxPrefixRows> cols{};  ///< bit (column) of the queen of rows 0..row-1
};

/// The prefixes of a count in their fixed order, with what listing them found and cost.
struct QueensPrefixes {
  std::vector<QueensPrefix> prefixes;
  std::uint64_t completions = 0;  ///< solutions found above the prefix depth (small n)
  std::uint64_t nodes = 0;        ///< placements tried while listing
};

/// The prefix depth of count_completions and `mpirun nqc count N`: 3 rows up to n = 21, 4 from
/// n = 22 (37,360 prefixes: enough for hundreds of ranks). It changes neither count nor nodes.
int queens_prefix_depth(Index n);

/// Q(n) for 1 <= n <= 64 by bit-parallel backtracking ([Somers02]) with the board's eight
/// symmetries as in Takahashi's N-Queens program ([Takahashi]):
/// - corner: row 0's queen in column 0, row 1's in column bound1 = 2..n-2; rows 1..bound1-1
///   keep off column 1 (the diagonal reflection). Each solution stands for 8.
/// - inner: row 0's queen in column bound1 (the nearest to a corner of the four edge queens):
///   rows above bound1 keep off both side columns, row bound2 = n-1-bound1 has the side queens
///   bounded, the last row keeps off the bound1 columns nearest each side. A solution is
///   compared with its quarter turns: kept if none is smaller, standing for 2, 4 or 8.
/// n = 16: 2.5e8 placements instead of 1.14e9, about 6 ns each; the last two rows without
/// branches. Rows are bits 0..n-1 of a word.
/// Limits: max_nodes is exact, the stop flag and the clock are polled every 2^20 placements. A
/// stopped count is a lower bound (whole orbits). Not thread-safe.
class QueensCounter {
 public:
  /// 1 <= n <= 64 (throws std::invalid_argument otherwise).
  QueensCounter(Index n, const Limits& limits);
  QueensCounter(const QueensCounter&) = delete;  // watch_ refers to limits_
  QueensCounter& operator=(const QueensCounter&) = delete;

  /// Lists the prefixes of `depth` rows (1..kMaxPrefixRows; fewer where the subproblem
  /// starts lower or n is small) in a fixed order: the corner subproblems by bound1, then
  /// the inner ones, each depth first, lowest column first. Solutions found while listing
  /// (n <= depth + 1) and the placements tried are added to this counter's totals and
  /// reported in the result. Stops at a limit like count().
  QueensPrefixes list(int depth);

  /// Adds the solutions below `prefix` (each counted with its weight) to completions().
  void count(const QueensPrefix& prefix);

  [[nodiscard]] std::uint64_t completions() const { return 8 * c8_ + 4 * c4_ + 2 * c2_ + plain_; }
  [[nodiscard]] std::uint64_t nodes() const { return nodes_; }
  /// True once a limit stopped the counter (it then counts nothing more).
  [[nodiscard]] bool stopped() const { return hit_ != StopReason::none; }
  /// max_nodes, time_limit or stop when stopped, else none.
  [[nodiscard]] StopReason limit() const { return hit_; }

 private:
  using u64 = std::uint64_t;
  template <bool Corner, bool List, bool Checked>
  void search(int y, u64 left, u64 down, u64 right, u64 free);
  template <bool Corner, bool Checked>
  [[gnu::always_inline]] void last_two_rows(int y, u64 left, u64 down, u64 right, u64 free);
  void solution(u64 last_bit);
  [[nodiscard]] int orbit_weight() const;
  void set_subproblem(bool corner, int bound1);
  void emit(int row, u64 left, u64 down, u64 right);
  // Called before a placement: false once a limit is hit (then on every call).
  bool may_place() { return nodes_ < stop_at_ || refill(); }
  // True when `need` more placements fit the budget before the next poll (polls if needed).
  bool fits(u64 need);
  // A placement is next and nodes_ >= stop_at_: false (and stopped) at max_nodes, else poll().
  bool refill();
  // The clock and the stop flag: false (and stopped) when one says stop, else moves
  // stop_at_ a poll interval on, not past max_nodes.
  bool poll();

  int n_, last_;
  u64 full_, topbit_;
  // The subproblem: see the class comment.
  int bound1_ = 0, bound2_ = 0;
  u64 sidemask_ = 0, lastmask_ = 0, endbit_ = 0;
  std::array<u64, 64> board_{};       // the queen of each placed row, as a bit
  std::array<u64, 65> most_below_{};  // the most placements below a row's start (search)
  u64 c2_ = 0, c4_ = 0, c8_ = 0, plain_ = 0;
  u64 nodes_ = 0, stop_at_ = 0;
  Limits limits_;
  LimitWatch watch_;  // on limits_
  StopReason hit_ = StopReason::none;
  // list(): the depth and the output.
  int cutoff_ = 64;
  QueensPrefixes* out_ = nullptr;
  bool corner_ = false;
};

}  // namespace nqc
