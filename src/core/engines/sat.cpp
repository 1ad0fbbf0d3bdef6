#include "core/engines/sat.hpp"

#include <cadical.hpp>

#include <algorithm>
#include <climits>
#include <numeric>
#include <span>
#include <vector>

#include "core/limit_watch.hpp"
#include "core/residual_board.hpp"

namespace nqc {
namespace {

// Polls the caller's time limit and stop flag for CaDiCaL.
class Watch final : public CaDiCaL::Terminator {
 public:
  explicit Watch(const LimitWatch& watch) : watch_(watch) {}
  bool terminate() override {
    hit_ = watch_.poll();
    return hit_ != StopReason::none;
  }
  [[nodiscard]] StopReason hit() const { return hit_; }

 private:
  const LimitWatch& watch_;
  StopReason hit_ = StopReason::none;
};

// Clauses for the cells `cells` (cell ids; variable = id + 1).
class Encoder {
 public:
  explicit Encoder(CaDiCaL::Solver& solver, int cells) : s_(solver), next_var_(cells + 1) {}

  void at_least_one(std::span<const Index> cells) {
    for (const Index e : cells) s_.add(var(e));
    s_.add(0);
  }

  // At most one true among `cells`: pairwise for small lines, else Sinz's sequential counter
  // ([Sinz05]): 3m clauses and m - 1 auxiliary variables.
  void at_most_one(std::span<const Index> cells) {
    const std::size_t m = cells.size();
    if (m < 2) return;
    if (m < 7) {
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = i + 1; j < m; ++j) clause({-var(cells[i]), -var(cells[j])});
      return;
    }
    int prev = 0;  // s_i: some of cells[0..i] is true
    for (std::size_t i = 0; i + 1 < m; ++i) {
      const int x = var(cells[i]), s = next_var_++;
      clause({-x, s});
      if (prev != 0) {
        clause({-prev, s});
        clause({-prev, -x});
      }
      prev = s;
    }
    clause({-prev, -var(cells[m - 1])});
  }

  // Every line of `board`: each free row and free column exactly one queen, each diagonal at most
  // one. Polls stopped() before each line's clauses (the encoding is set-up too): false when it
  // said stop.
  template <class Stopped>
  bool encode(const ResidualBoard& board, Stopped&& stopped) {
    // A line's clauses, after a poll: false when stopped.
    const auto line = [&](std::span<const Index> cells, bool exactly_one) {
      if (stopped()) return false;
      if (exactly_one) at_least_one(cells);
      at_most_one(cells);
      return true;
    };
    std::vector<Index> row;
    for (Index a = 0; a < board.free_rows(); ++a) {
      row.resize(static_cast<std::size_t>(board.row_cells_end(a) - board.row_cells_begin(a)));
      std::iota(row.begin(), row.end(), board.row_cells_begin(a));
      if (!line(row, true)) return false;
    }
    for (Index b = 0; b < board.free_rows(); ++b)
      if (!line(board.column_cells(b), true)) return false;
    for (Index d = 0; d < board.diff_lines(); ++d)
      if (!line(board.diff_cells(d), false)) return false;
    for (Index d = 0; d < board.sum_lines(); ++d)
      if (!line(board.sum_cells(d), false)) return false;
    return true;
  }

 private:
  static int var(Index e) { return static_cast<int>(e) + 1; }
  void clause(std::initializer_list<int> lits) {
    for (const int l : lits) s_.add(l);
    s_.add(0);
  }

  CaDiCaL::Solver& s_;
  int next_var_;
};

}  // namespace

Result complete_sat(const Composition& c, Rng& rng, const Limits& limits) {
  (void)rng;  // CaDiCaL's own choices are deterministic for a given formula
  Result result;
  LimitWatch watch(limits, 1);
  ResidualBoard board;
  if ((result.limit = board.build(c, true, &watch)) != StopReason::none) return result;
  if (board.free_rows() == 0) {
    result.outcome = Outcome::solved;
    result.solution = c;
    return result;
  }
  if (board.has_dead_line()) {
    result.outcome = Outcome::infeasible;
    return result;
  }
  CaDiCaL::Solver solver;
  solver.set("quiet", 1);
  Encoder enc(solver, board.cell_count());
  const Index f = board.free_rows();
  const auto stopped = [&] { return (result.limit = watch.poll()) != StopReason::none; };
  if (!enc.encode(board, stopped)) return result;

  Watch terminator(watch);
  solver.connect_terminator(&terminator);
  if (limits.max_nodes != 0)
    solver.limit("decisions", static_cast<int>(std::min<std::uint64_t>(limits.max_nodes, INT_MAX)));
  const int status = solver.solve();
  solver.disconnect_terminator();
  if (status == 10) {
    result.outcome = Outcome::solved;
    result.solution = c;
    for (Index e = 0; e < board.cell_count(); ++e)
      if (solver.val(static_cast<int>(e) + 1) > 0)
        result.solution.q[static_cast<std::size_t>(board.board_row(board.cell(e).a))] =
            board.board_col(board.cell(e).b) + 1;
    result.counters.placed_search = static_cast<std::uint64_t>(f);
  } else if (status == 20) {
    result.outcome = Outcome::infeasible;
  } else {
    result.outcome = Outcome::gave_up;
    result.limit = terminator.hit() != StopReason::none ? terminator.hit() : StopReason::max_nodes;
  }
  return result;
}

}  // namespace nqc
