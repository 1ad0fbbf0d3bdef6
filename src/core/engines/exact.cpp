#include "core/engines/exact.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string_view>

#include "core/limit_watch.hpp"
#include "core/residual_board.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// Exact's rules over the residual board (free rows x free columns as the list of their free
// cells, core/residual_board.hpp; forward checking on rows and columns).

// Minimum-remaining-values: the open row with the fewest free cells, ties uniformly at random
// (one draw, rng->below(ties), when there are ties: the j-th tied row in ascending order) or the
// first when rng is null. Requires an open row.
Index choose_row(const ResidualBoard& board, Rng* rng) {
  Index best = -1, best_free = 0;
  std::uint64_t ties = 0;
  for (Index a = 0; a < board.free_rows(); ++a) {
    if (!board.row_open(a)) continue;
    const Index v = board.row_free(a);
    if (best < 0 || v < best_free) {
      best = a;
      best_free = v;
      ties = 1;
    } else if (v == best_free) {
      ++ties;
    }
  }
  if (rng == nullptr || ties < 2) return best;
  for (std::uint64_t j = rng->below(ties); best < board.free_rows(); ++best)
    if (board.row_open(best) && board.row_free(best) == best_free && j-- == 0) break;
  return best;
}

// Appends the free cells of open row a to `out`, least damage first ([Grigoryan], "minimum damage
// rule": free cells on the cell's column and its two diagonals), ties in random order when rng
// is given (counting visits every cell: order does not matter).
void candidates(const ResidualBoard& board, Index a, Rng* rng, std::vector<Index>& out) {
  const std::size_t first = out.size();
  for (Index e = board.row_cells_begin(a); e < board.row_cells_end(a); ++e)
    if (board.is_free(e)) out.push_back(e);
  if (rng == nullptr) return;
  const auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
  shuffle(begin, out.end(), *rng);
  std::stable_sort(begin, out.end(), [&](Index x, Index y) { return board.damage(x) < board.damage(y); });
}

// A node costs O(f) on f free rows: large boards poll the clock more often (every node from
// 4096 free rows on) so that a time limit stops within a few node costs.

struct Frame {
  Index row;              // reduced row index a
  std::size_t next, end;  // range of untried candidates in the pool
  std::size_t begin;      // pool offset to truncate to on pop
  Index placed = -1;      // cell id of the queen standing in `row`, or -1
};

// The search loop shared by completion (stop at the first solution) and counting.
// Returns the limit when stopped by one, else StopReason::none.
// `restart_at`: a node count at which to stop and set `restarted` (0: never), below the limits.
// A search stopped by a limit or a restart takes its queens back off the board first.
template <class OnSolution>
StopReason search(ResidualBoard& board, Rng* rng, LimitWatch& watch, Counters& counters, std::uint64_t restart_at,
                  OnSolution&& on_solution, bool* restarted = nullptr) {
  std::vector<Frame> stack;
  std::vector<Index> pool;
  stack.reserve(static_cast<std::size_t>(board.free_rows()) + 1);
  const auto push_row = [&] {
    const Index a = choose_row(board, rng);
    const std::size_t begin = pool.size();
    candidates(board, a, rng, pool);
    stack.push_back({a, begin, pool.size(), begin});
  };
  push_row();
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.placed >= 0) {
      board.undo(top.placed);
      top.placed = -1;
      ++counters.backtracks;
    }
    if (top.next == top.end) {
      pool.resize(top.begin);
      stack.pop_back();
      continue;
    }
    const StopReason hit = watch.check(counters.nodes);
    const bool restart = hit == StopReason::none && restart_at != 0 && counters.nodes >= restart_at;
    if (hit != StopReason::none || restart) {
      for (auto f = stack.rbegin(); f != stack.rend(); ++f)
        if (f->placed >= 0) board.undo(f->placed);
      if (restart) *restarted = true;
      return hit;
    }
    const Index e = pool[top.next++];
    ++counters.nodes;
    top.placed = e;
    if (!board.place(e)) continue;
    if (board.open_rows() == 0) {
      if (on_solution(stack)) return StopReason::none;
      continue;
    }
    push_row();
  }
  return StopReason::none;
}

}  // namespace

Outcome search_residual(ResidualBoard& board, Rng& rng, LimitWatch& watch, Counters& counters, Composition& solution,
                        StopReason& limit, const ExactParams& params) {
  if (board.free_rows() == 0) return Outcome::solved;
  if (board.has_dead_line()) return Outcome::infeasible;
  // Randomized restarts ([Gomes98]) with node budgets in the Luby sequence 1, 1, 2, 1, 1, 2,
  // 4, ... times 2f + 256 (ExactParams' defaults; [Luby93]: within a log factor of the best
  // fixed budget): depth-first search on queens has a heavy tail (one MRV run on the empty n = 1000
  // board spent 2*10^7 nodes without a solution, while most random tie-breaks need about n;
  // doubling budgets still took 3 s on some derived n = 1000 cases). Every run is complete
  // within its budget and budgets grow without bound, so exhausting the space in any run
  // proves infeasibility: the search as a whole stays complete.
  const auto free_rows = static_cast<std::uint64_t>(board.free_rows());
  const std::uint64_t nodes_before = counters.nodes;  // the caller's (auto's fills)
  for (std::uint64_t run = 1;; ++run) {
    const std::uint64_t budget = restart_budget(params, free_rows, run, counters.nodes - nodes_before);
    bool solved = false, restarted = false;
    const StopReason hit = search(
        board, &rng, watch, counters, saturating_add(counters.nodes, budget),
        [&](const std::vector<Frame>& stack) {
          for (const Frame& f : stack)
            solution.q[static_cast<std::size_t>(board.board_row(f.row))] = board.board_col(board.cell(f.placed).b) + 1;
          counters.placed_search += stack.size();
          solved = true;
          return true;  // the frames still hold their queens: the last placement is no backtrack
        },
        &restarted);
    if (solved) return Outcome::solved;
    if (restarted) {
      ++counters.restarts;
      continue;
    }
    limit = hit;
    return hit != StopReason::none ? Outcome::gave_up : Outcome::infeasible;
  }
}

Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits, Counters counters,
                      const ExactParams& params) {
  Result result;  // the board's build checks the composition and throws std::invalid_argument
  LimitWatch watch(limits, exact_poll_interval(composition.n() - composition.k()));
  ResidualBoard board;
  if (const StopReason hit = board.build(composition, true, &watch); hit != StopReason::none) {
    result.outcome = Outcome::gave_up;
    result.limit = hit;
    result.counters = counters;
    return result;
  }
  result.solution = composition;
  result.outcome = search_residual(board, rng, watch, counters, result.solution, result.limit, params);
  if (result.outcome != Outcome::solved) result.solution = Composition();
  result.counters = counters;
  return result;
}

CountResult count_completions_reduced(const Composition& composition, const Limits& limits) {
  CountResult out;
  LimitWatch watch(limits, exact_poll_interval(composition.n() - composition.k()));
  ResidualBoard board;
  if (const StopReason hit = board.build(composition, true, &watch); hit != StopReason::none) {
    out.gave_up = true;
    out.limit = hit;
    return out;
  }
  if (board.free_rows() == 0) {
    out.completions = 1;
    return out;
  }
  if (board.has_dead_line()) return out;
  Counters counters;
  const StopReason hit = search(board, nullptr, watch, counters, 0, [&](const std::vector<Frame>&) {
    ++out.completions;
    return false;
  });
  out.nodes = counters.nodes;
  out.gave_up = hit != StopReason::none;
  out.limit = hit;
  return out;
}

}  // namespace nqc
