#include "core/engines/minconflicts.hpp"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/composition.hpp"
#include "core/limit_watch.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// A diagonal of the board: its queens, fixed and free, and the XOR of its free queens' ids
// (free row a: a + 1; fixed: 0), which names in O(1) the other queen of a line that just got
// its second. Count and XOR share a cache line.
struct Line {
  std::int32_t count = 0;
  std::uint32_t ids = 0;
};

// The search state. The free rows hold a permutation of the free columns and a move swaps two
// of them (QS4 of [SosicGu91]) rather than moving a queen to its min-conflict column
// ([Minton92]): columns hold by construction, a move costs O(1) instead of O(f), and the
// greedy start O(1) probes per row. Min-conflicts' flavour stays in what is repaired: a
// conflicted row, by the first sampled swap that lowers the attacking pairs E.
// Conflicted rows are kept in a lazy list: every conflicted free row is in it, a row in it may
// have become conflict-free and is dropped when drawn.
class SwapSearch {
 public:
  // The state of consistent composition `c` (used columns `used`); the set-up is polled by
  // `setup` (a stopped one leaves the state incomplete).
  SwapSearch(const Composition& c, const Bitset& used, SetupWatch& setup) : n_(c.n()) {
    const auto lines = 2 * static_cast<std::int64_t>(n_);
    // Zeroed in pieces: the line counts take seconds to touch at n = 10^8.
    d1_.reserve(static_cast<std::size_t>(lines));
    d2_.reserve(static_cast<std::size_t>(lines));
    if (!setup.chunks(lines, [&](std::int64_t, std::int64_t to) {
          d1_.resize(static_cast<std::size_t>(to));
          d2_.resize(static_cast<std::size_t>(to));
        }))
      return;
    const Index* q = c.q.data();
    if (!setup.chunks(n_, [&](std::int64_t from, std::int64_t to) {
          for (auto r = static_cast<Index>(from); r < static_cast<Index>(to); ++r)
            if (const Index j = q[r]; j != 0) {
              ++d1_[d1(r, j - 1)].count;  // fixed queens have id 0: ids stay unchanged
              ++d2_[d2(r, j - 1)].count;
            }
        }))
      return;
    // An excluded diagonal holds a phantom fixed queen (count 1, id 0): a free queen on it
    // conflicts, and E = 0 still means a valid completion.
    if (c.has_excluded_diagonals()) {
      Bitset off1(static_cast<std::size_t>(lines)), off2(static_cast<std::size_t>(lines));
      close_excluded_diagonals(c, off1, off2);  // also drops duplicates
      if (!setup.chunks(lines, [&](std::int64_t from, std::int64_t to) {
            for (auto i = static_cast<std::size_t>(from); i < static_cast<std::size_t>(to); ++i) {
              d1_[i].count += off1.test(i) ? 1 : 0;
              d2_[i].count += off2.test(i) ? 1 : 0;
            }
          }))
        return;
    }
    // A consistent composition has as many free columns as free rows.
    rows_ = free_rows_of(c, &setup);
    cols_ = free_columns_of(used, n_, &setup);
    if (setup.hit() != StopReason::none) return;
    in_list_.assign(rows_.size(), 0);
    list_.reserve(rows_.size());
  }

  [[nodiscard]] Index free_count() const { return static_cast<Index>(rows_.size()); }
  [[nodiscard]] std::int64_t energy() const { return energy_; }

  /// Writes the free rows' columns into `out` (a copy of the composition).
  void write(Composition& out) const {
    for (std::size_t a = 0; a < rows_.size(); ++a) out.q[static_cast<std::size_t>(rows_[a])] = cols_[a] + 1;
  }

  /// Starts a try: places every free row and fills the conflict list, one node per placement;
  /// returns the limit hit (the board then half-built, for no further search).
  StopReason initialize(MinConflictsInit init, std::uint32_t probes, Rng& rng, LimitWatch& watch,
                        std::uint64_t& nodes) {
    const Index f = free_count();
    if (init == MinConflictsInit::random) shuffle(cols_.begin(), cols_.end(), rng);
    for (Index a = 0; a < f; ++a) {
      if (const StopReason hit = watch.check(nodes); hit != StopReason::none) return hit;
      ++nodes;
      if (init == MinConflictsInit::greedy) {
        const Index j = greedy_pick(a, probes, rng);
        std::swap(cols_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(j)]);
      }
      add(a);
    }
    for (Index a = 0; a < f; ++a)
      if (conflicted(a)) push(a);
    return StopReason::none;
  }

  /// Takes the free queens off the board (the fixed ones stay) and empties the list.
  void unplace_all(Index placed) {
    for (Index a = 0; a < placed; ++a) remove(a);
    for (const Index a : list_) in_list_[static_cast<std::size_t>(a)] = 0;
    list_.clear();
  }

  /// One repair step: draws a listed row; if conflicted, samples swap partners (one node each)
  /// and makes the first improving swap, else with probability `noise` the least bad one.
  /// Requires energy() > 0 and free_count() >= 2.
  StopReason repair_step(const MinConflictsParams& p, Rng& rng, LimitWatch& watch, std::uint64_t& nodes,
                         std::uint64_t& moves) {
    assert(!list_.empty());  // energy() > 0: some free row is conflicted, hence listed
    const std::size_t at = static_cast<std::size_t>(rng.below(list_.size()));
    const Index a = list_[at];
    if (!conflicted(a)) {
      list_[at] = list_.back();
      list_.pop_back();
      in_list_[static_cast<std::size_t>(a)] = 0;
      return StopReason::none;
    }
    const Index f = free_count();
    const bool scan_all = static_cast<std::uint64_t>(f - 1) <= p.partner_samples;
    const Index tries = scan_all ? f - 1 : static_cast<Index>(p.partner_samples);
    const Index offset = scan_all ? static_cast<Index>(rng.below(static_cast<std::uint64_t>(f - 1))) : 0;
    Index best = -1;
    std::int64_t best_delta = std::numeric_limits<std::int64_t>::max();
    std::uint64_t ties = 0;
    for (Index t = 0; t < tries; ++t) {
      if (const StopReason hit = watch.check(nodes); hit != StopReason::none) return hit;
      ++nodes;
      ++moves;
      // Partner b != a: uniform on the other f - 1 rows, or the t-th after a random offset.
      Index b = scan_all ? static_cast<Index>((static_cast<std::int64_t>(offset) + t) % (f - 1))
                         : static_cast<Index>(rng.below(static_cast<std::uint64_t>(f - 1)));
      if (b >= a) ++b;
      const std::int64_t before = energy_;
      swap(a, b);
      const std::int64_t delta = energy_ - before;
      if (delta < 0) {
        after_swap(a, b);
        return StopReason::none;
      }
      swap(a, b);  // undo: a swap is its own inverse
      if (delta < best_delta) {
        best_delta = delta;
        best = b;
        ties = 1;
      } else if (delta == best_delta && rng.below(++ties) == 0) {
        best = b;
      }
    }
    if (best >= 0 && p.noise > 0.0 && unit(rng) < p.noise) {
      swap(a, best);
      after_swap(a, best);
    }
    return StopReason::none;
  }

 private:
  // The greedy choice for free row a: an index j in [a, f) into the unused columns. Random
  // probes (all from a random offset when at most `probes` are left); the first conflict-free
  // wins, else the least conflicted. Probes go in batches prefetched together: at n = 10^6 one
  // at a time spent three quarters of the run waiting on cache misses.
  Index greedy_pick(Index a, std::uint32_t probes, Rng& rng) {
    constexpr Index kBatch = 4;
    const Index f = free_count();
    const Index left = f - a;
    const Index r = rows_[static_cast<std::size_t>(a)];
    const bool scan_all = static_cast<std::uint64_t>(left) <= probes;
    const Index tries = scan_all ? left : static_cast<Index>(probes);
    const Index offset = scan_all ? static_cast<Index>(rng.below(static_cast<std::uint64_t>(left))) : 0;
    Index best = a;
    std::int32_t best_conflicts = std::numeric_limits<std::int32_t>::max();
    for (Index t0 = 0; t0 < tries; t0 += kBatch) {
      const Index m = std::min(kBatch, tries - t0);
      Index js[kBatch];
      for (Index i = 0; i < m; ++i) {
        const Index t = t0 + i;
        js[i] = a + (scan_all ? (offset + t) % left : static_cast<Index>(rng.below(static_cast<std::uint64_t>(left))));
        const Index col = cols_[static_cast<std::size_t>(js[i])];
        __builtin_prefetch(&d1_[d1(r, col)]);
        __builtin_prefetch(&d2_[d2(r, col)]);
      }
      for (Index i = 0; i < m; ++i) {
        const Index col = cols_[static_cast<std::size_t>(js[i])];
        const std::int32_t conflicts = d1_[d1(r, col)].count + d2_[d2(r, col)].count;
        if (conflicts < best_conflicts) {
          best_conflicts = conflicts;
          best = js[i];
          if (conflicts == 0) return best;
        }
      }
    }
    return best;
  }

  [[nodiscard]] std::size_t d1(Index r, Index c) const { return diff_line(n_, r, c); }
  [[nodiscard]] static std::size_t d2(Index r, Index c) { return sum_line(r, c); }
  [[nodiscard]] Line& line1(Index a) {
    return d1_[d1(rows_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(a)])];
  }
  [[nodiscard]] Line& line2(Index a) {
    return d2_[d2(rows_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(a)])];
  }
  [[nodiscard]] bool conflicted(Index a) { return line1(a).count > 1 || line2(a).count > 1; }

  static double unit(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

  // E counts attacking pairs: a queen joining a line with c queens adds c pairs.
  void add(Index a) { toggle<+1>(a); }
  void remove(Index a) { toggle<-1>(a); }
  template <int Delta>
  void toggle(Index a) {
    for (Line* x : {&line1(a), &line2(a)}) {
      if constexpr (Delta > 0) energy_ += x->count;
      x->count += Delta;
      if constexpr (Delta < 0) energy_ -= x->count;
      x->ids ^= static_cast<std::uint32_t>(a) + 1;
    }
  }
  void swap(Index a, Index b) {
    remove(a);
    remove(b);
    std::swap(cols_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(b)]);
    add(a);
    add(b);
  }

  void push(Index a) {
    if (in_list_[static_cast<std::size_t>(a)] != 0) return;
    in_list_[static_cast<std::size_t>(a)] = 1;
    list_.push_back(a);
  }

  // Keeps the list invariant after an accepted swap of a and b: on each of the four lines they
  // now stand on, the other queens were conflict-free before only if there is exactly one.
  void after_swap(Index a, Index b) {
    if (conflicted(a)) push(a);
    if (conflicted(b)) push(b);
    const auto ida = static_cast<std::uint32_t>(a) + 1, idb = static_cast<std::uint32_t>(b) + 1;
    Line* const la[2] = {&line1(a), &line2(a)};
    Line* const lb[2] = {&line1(b), &line2(b)};
    for (int dir = 0; dir < 2; ++dir) {
      const bool shared = la[dir] == lb[dir];
      push_lone_other(*la[dir], shared ? (ida ^ idb) : ida, shared ? 2 : 1);
      if (!shared) push_lone_other(*lb[dir], idb, 1);
    }
  }
  void push_lone_other(const Line& line, std::uint32_t mover_ids, std::int32_t movers) {
    if (line.count - movers != 1) return;
    const std::uint32_t other = line.ids ^ mover_ids;
    if (other != 0) push(static_cast<Index>(other - 1));
  }

  Index n_;
  std::vector<Index> rows_;  // board row of free row a, increasing
  std::vector<Index> cols_;  // board column of free row a: a permutation of the free columns
  std::vector<Line> d1_, d2_;
  std::int64_t energy_ = 0;  // attacking pairs among all queens (fixed pairs contribute 0)
  std::vector<Index> list_;  // conflict list (lazy)
  std::vector<std::uint8_t> in_list_;
};

}  // namespace

Result complete_minconflicts(const Composition& composition, Rng& rng, const Limits& limits,
                             const MinConflictsParams& params) {
  Result result;
  Counters& counters = result.counters;
  // The set-up (the composition's check, line counts, free lines) is polled as the search is.
  LimitWatch watch(limits);
  SetupWatch setup(&watch);
  if (setup.stopped()) {
    result.limit = setup.hit();
    return result;
  }
  const auto n = static_cast<std::uint64_t>(composition.n());
  require_memory(32 * n + 5 * n / 8, "engine 'minconflicts' at n = " + std::to_string(composition.n()) +
                                         " (its diagonal counts: 32 bytes per row)");
  Bitset used;
  {
    Bitset diff, sum;
    close_lines(composition, used, diff, sum, &setup);
  }
  SwapSearch search(composition, used, setup);
  if ((result.limit = setup.hit()) != StopReason::none) return result;
  const Index f = search.free_count();
  // Saturated: moves_per_free_row may be +infinity (times f = 0: NaN) and min_moves_per_try UINT64_MAX.
  const double per_try = params.moves_per_free_row * static_cast<double>(f);
  const std::uint64_t scaled = !(per_try < 0x1p64) ? UINT64_MAX : static_cast<std::uint64_t>(per_try);
  const std::uint64_t budget = saturating_add(scaled, params.min_moves_per_try);
  for (std::uint64_t attempt = 0;; ++attempt) {
    StopReason hit = search.initialize(params.init, params.greedy_probes, rng, watch, counters.nodes);
    std::uint64_t moves = 0;
    // With one free row there is no swap: its one cell is the only assignment.
    while (hit == StopReason::none && search.energy() > 0 && f >= 2 && moves < budget)
      hit = search.repair_step(params, rng, watch, counters.nodes, moves);
    if (hit != StopReason::none) {
      result.outcome = Outcome::gave_up;
      result.limit = hit;
      return result;
    }
    if (search.energy() == 0) break;
    if (f < 2 || attempt >= params.max_restarts) {
      result.outcome = Outcome::gave_up;
      result.limit = StopReason::minconflicts_limits;
      return result;
    }
    search.unplace_all(f);
    ++counters.restarts;
  }
  result.solution = composition;
  search.write(result.solution);
  // O(n), small next to the search; a failure here is a bug in the incremental counts.
  if (!is_solution(result.solution) || !extends(result.solution, composition))
    throw std::logic_error("bug: minconflicts reached zero conflicts on an invalid board");
  result.outcome = Outcome::solved;
  counters.placed_search = static_cast<std::uint64_t>(f);
  return result;
}

}  // namespace nqc
