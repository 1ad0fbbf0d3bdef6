#include "core/engines/exact.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "core/engines/depth_first.hpp"
#include "core/limit_watch.hpp"
#include "core/residual_board.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// Exact's rules over the residual board: the board policy of DepthFirst. Each level's
// candidates follow those of the levels above in one pool. `rng` null: counting.
class ResidualSearch {
 public:
  ResidualSearch(ResidualBoard& board, Rng* rng)
      : board_(board), rng_(rng), begin_(static_cast<std::size_t>(board.free_rows()) + 1) {}

  [[nodiscard]] int free_rows() const { return board_.free_rows(); }
  bool dead_at_root() { return board_.has_dead_line(); }
  // Every run breaks ties at random (its candidates go least damage first: random order only
  // reorders equal damages).
  void start_run(bool /*randomized*/) {}
  int candidates(int level) {
    const auto at = static_cast<std::size_t>(level);
    pool_.resize(begin_[at]);
    append_candidates(choose_row());
    begin_[at + 1] = pool_.size();
    return static_cast<int>(begin_[at + 1] - begin_[at]);
  }
  bool place(int level, int i) { return board_.place(cell(level, i)); }
  void undo(int level, int i) { board_.undo(cell(level, i)); }
  [[nodiscard]] std::pair<Index, Index> queen(int level, int i) const {
    const ResidualBoard::Cell& c = board_.cell(cell(level, i));
    return {board_.board_row(c.a), board_.board_col(c.b)};
  }

 private:
  [[nodiscard]] Index cell(int level, int i) const {
    return pool_[begin_[static_cast<std::size_t>(level)] + static_cast<std::size_t>(i)];
  }

  // Minimum-remaining-values: the open row with the fewest free cells (pick_tied's ties).
  // Requires an open row.
  [[nodiscard]] Index choose_row() const {
    Index best = -1, best_free = 0;
    std::uint64_t ties = 0;
    for (Index a = 0; a < board_.free_rows(); ++a) {
      if (!board_.row_open(a)) continue;
      const Index v = board_.row_free(a);
      if (best < 0 || v < best_free) {
        best = a;
        best_free = v;
        ties = 1;
      } else if (v == best_free) {
        ++ties;
      }
    }
    return pick_tied(ties, rng_, [&](std::uint64_t j) {
      for (Index a = best;; ++a)
        if (board_.row_open(a) && board_.row_free(a) == best_free && j-- == 0) return a;
    });
  }

  // Appends the free cells of open row a to the pool, least damage first ([Grigoryan], "minimum
  // damage rule": free cells on the cell's column and its two diagonals), ties in random order
  // when rng is given (counting visits every cell: order does not matter).
  void append_candidates(Index a) {
    const std::size_t first = pool_.size();
    for (Index e = board_.row_cells_begin(a); e < board_.row_cells_end(a); ++e)
      if (board_.is_free(e)) pool_.push_back(e);
    if (rng_ == nullptr) return;
    const auto begin = pool_.begin() + static_cast<std::ptrdiff_t>(first);
    shuffle(begin, pool_.end(), *rng_);
    std::stable_sort(begin, pool_.end(), [&](Index x, Index y) { return board_.damage(x) < board_.damage(y); });
  }

  ResidualBoard& board_;
  Rng* rng_;
  std::vector<Index> pool_;         // the candidates of every level
  std::vector<std::size_t> begin_;  // level l's are pool_[begin_[l], begin_[l + 1])
};

}  // namespace

Outcome search_residual(ResidualBoard& board, Rng& rng, LimitWatch& watch, Counters& counters, Composition& solution,
                        StopReason& limit, const ExactParams& params) {
  // Restarts ([Gomes98], [Luby93]): depth-first search on queens has a heavy tail (one run on the
  // empty n = 1000 board spent 2*10^7 nodes; most random tie-breaks need about n).
  ResidualSearch policy(board, &rng);
  DepthFirst<ResidualSearch> search(policy, watch, counters);
  const Outcome outcome = luby_restarts(search, counters, params, limit);
  if (outcome == Outcome::solved) search.write(solution);
  return outcome;
}

Result complete_exact(const Composition& composition, Rng& rng, const Limits& limits, Counters counters,
                      const ExactParams& params) {
  Result result;  // the board's build checks the composition and throws std::invalid_argument
  LimitWatch watch(limits, exact_poll_interval(composition.n() - composition.k()));
  ResidualBoard board;
  result.limit = board.build(composition, true, &watch);
  if (result.limit == StopReason::none) {
    result.solution = composition;
    result.outcome = search_residual(board, rng, watch, counters, result.solution, result.limit, params);
    if (result.outcome != Outcome::solved) result.solution = Composition();
  }
  result.counters = counters;
  return result;
}

CountResult count_completions_reduced(const Composition& composition, const Limits& limits) {
  LimitWatch watch(limits, exact_poll_interval(composition.n() - composition.k()));
  ResidualBoard board;
  if (const StopReason hit = board.build(composition, true, &watch); hit != StopReason::none)
    return {.gave_up = true, .limit = hit};
  ResidualSearch policy(board, nullptr);
  return count_all(policy, watch);
}

}  // namespace nqc
