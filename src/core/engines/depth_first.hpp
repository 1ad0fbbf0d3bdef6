// The depth-first search of the complete engines (exact, bitboard), written once over a board
// policy: its loop, its Luby restarts and its count of every completion.
#pragma once

#include <cstdint>
#include <vector>

#include "core/composition.hpp"
#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/limit_watch.hpp"
#include "core/rng.hpp"

namespace nqc {

/// The row that minimum remaining values takes among `ties` rows tied at the fewest free cells:
/// nth(rng->below(ties)) when rng is given and there are ties, else nth(0).
template <class Nth>
auto pick_tied(std::uint64_t ties, Rng* rng, Nth&& nth) {
  return nth(rng != nullptr && ties > 1 ? rng->below(ties) : 0);
}

/// Depth-first search over a board policy, one queen a level, iterative. Board provides, inline:
/// free_rows(); dead_at_root() (an open line without a free cell; prepares the root);
/// start_run(randomized); candidates(level) (their number); place(level, i) (false when forward
/// checking fails; stands until undo); undo(level, i) (last placed first); queen(level, i)
/// (board row and column). Counters: nodes = placements tried, backtracks = placements taken back.
template <class Board>
class DepthFirst {
 public:
  DepthFirst(Board& board, LimitWatch& watch, Counters& counters)
      : board_(board),
        watch_(watch),
        counters_(counters),
        f_(board.free_rows()),
        next_(static_cast<std::size_t>(f_)),
        size_(static_cast<std::size_t>(f_)) {}

  [[nodiscard]] Board& board() { return board_; }

  /// Searches until on_solution() returns true (solved: the queens stay for write()), the space
  /// is exhausted (none), a limit (returned), or `restart_at` nodes (none, *restarted set; 0:
  /// never). A stopped search takes its queens back first.
  template <class OnSolution>
  StopReason run(std::uint64_t restart_at, OnSolution&& on_solution, bool* restarted = nullptr) {
    int level = 0;
    open(0);
    for (;;) {
      if (next(level) == size(level)) {  // exhausted: back to the queen of the level above
        if (level == 0) return StopReason::none;
        --level;
        board_.undo(level, next(level) - 1);
        ++counters_.backtracks;
        continue;
      }
      const StopReason hit = watch_.check(counters_.nodes);
      const bool restart = hit == StopReason::none && restart_at != 0 && counters_.nodes >= restart_at;
      if (hit != StopReason::none || restart) {
        while (--level >= 0) board_.undo(level, next(level) - 1);
        if (restart) *restarted = true;
        return hit;
      }
      const int i = next(level)++;
      ++counters_.nodes;
      if (board_.place(level, i)) {
        if (level + 1 < f_) {
          open(++level);
          continue;
        }
        if (on_solution()) return StopReason::none;
      }
      board_.undo(level, i);
      ++counters_.backtracks;
    }
  }

  /// The queens of a solved run into `solution` (1-based columns at their board rows).
  void write(Composition& solution) const {
    for (int level = 0; level < f_; ++level) {
      const auto [row, col] = board_.queen(level, next_[static_cast<std::size_t>(level)] - 1);
      solution.q[static_cast<std::size_t>(row)] = col + 1;
    }
  }

 private:
  int& next(int level) { return next_[static_cast<std::size_t>(level)]; }
  int size(int level) const { return size_[static_cast<std::size_t>(level)]; }
  void open(int level) {
    size_[static_cast<std::size_t>(level)] = board_.candidates(level);
    next(level) = 0;
  }

  Board& board_;
  LimitWatch& watch_;
  Counters& counters_;
  int f_;
  std::vector<int> next_, size_;  // a level's next candidate and its number of candidates
};

/// The complete search with randomized restarts ([Gomes98]): run i may try restart_budget()
/// nodes; budgets grow without bound (the last run goes in order to the end), so exhausting the
/// space in any run proves infeasibility. Returns solved (queens for search.write()),
/// infeasible, or gave_up with `limit` set. Counters accumulate.
template <class Board, class Params>
Outcome luby_restarts(DepthFirst<Board>& search, Counters& counters, const Params& params, StopReason& limit) {
  Board& board = search.board();
  if (board.free_rows() == 0) return Outcome::solved;
  if (board.dead_at_root()) return Outcome::infeasible;
  const auto f = static_cast<std::uint64_t>(board.free_rows());
  const std::uint64_t nodes_before = counters.nodes;  // the caller's (auto's fills)
  for (std::uint64_t run = 1;; ++run) {
    const std::uint64_t budget = restart_budget(params, f, run, counters.nodes - nodes_before);
    const bool last = budget == UINT64_MAX;
    board.start_run(!last);
    bool solved = false, restarted = false;
    const StopReason hit = search.run(
        last ? 0 : saturating_add(counters.nodes, budget), [&] { return solved = true; }, &restarted);
    if (solved) {
      counters.placed_search += f;
      return Outcome::solved;
    }
    if (restarted) {
      ++counters.restarts;
      continue;
    }
    limit = hit;
    return hit != StopReason::none ? Outcome::gave_up : Outcome::infeasible;
  }
}

/// Every completion of `board` counted by one run without restarts (start_run(false)).
template <class Board>
CountResult count_all(Board& board, LimitWatch& watch) {
  if (board.free_rows() == 0) return {.completions = 1};
  if (board.dead_at_root()) return {};
  board.start_run(false);
  Counters counters;
  DepthFirst<Board> search(board, watch, counters);
  std::uint64_t completions = 0;
  const StopReason hit = search.run(0, [&] { return ++completions, false; });
  return {completions, counters.nodes, hit != StopReason::none, hit};
}

}  // namespace nqc
