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

// One diagonal (or anti-diagonal) of the full board: how many queens stand on it, fixed and
// free, and the XOR of the ids of its free queens (free row a has id a + 1, a fixed queen
// id 0). With the count, the XOR names the one other queen on a line that just got its
// second queen, in O(1) and without a per-line list; it is 0 when that queen is fixed.
// Count and XOR share a cache line: each line costs one miss at n = 10^6.
struct Line {
  std::int32_t count = 0;
  std::uint32_t ids = 0;
};

// The search state. Design: the free rows always hold a permutation of the free columns and
// a move swaps the columns of two free rows (QS4 of [SosicGu91]), rather than moving
// one queen to its min-conflict column (min-conflicts of [Minton92]). Reasons:
//  - the column constraint then holds by construction, so only the two diagonal directions
//    carry conflicts, and a move is evaluated in O(1) (four lines off, four lines on) with
//    no O(f) scan of the domain; a min-conflict value choice costs O(f) per move, which is
//    O(n^2) overall at n = 10^6 if a constant fraction of rows ever moves;
//  - the greedy start then has O(1) expected probes per row (about half the lines of each
//    direction stay free until the end, 2n - 1 lines for n queens), so a try costs O(f),
//    where Minton's greedy min-conflict start costs O(f^2).
// The min-conflicts flavour is kept in the choice of what to repair: only a conflicted free
// row is repaired, and it takes the first sampled swap that lowers the number of attacking
// pairs E (random tie-breaks among the least bad ones for the noise step). QS4 instead
// sweeps all rows looking for attacked ones, O(f) per sweep even when two rows conflict;
// the conflict list below makes finding one O(1) amortized.
//
// Conflicted rows are kept in a lazy list: every conflicted free row is in it (invariant),
// but a row in it may have become conflict-free, and is dropped when drawn. A row becomes
// conflicted only when it moves (the swapped rows are pushed) or when a line through it
// gains a queen; a line that gains queens in a swap either had one other queen (named by
// Line::ids, pushed if free) or several, which were conflicted already.
class SwapSearch {
 public:
  // The state of consistent composition `c`, whose used columns are `used`; the O(n) passes
  // and the zeroing of the line counts are polled by `setup` (a stopped one leaves the state
  // incomplete, for no search).
  SwapSearch(const Composition& c, const Bitset& used, SetupWatch& setup) : n_(c.n()) {
    const auto lines = 2 * static_cast<std::int64_t>(n_);
    // Zeroed in pieces: the 32 bytes per row of the line counts take seconds to touch at n = 10^8.
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
    // An excluded diagonal (CSPLib prob079) holds a phantom fixed queen: count 1, id 0. A
    // free queen on it then conflicts like one on a fixed queen's line, E = 0 still means a
    // valid completion, and no other code needs to know. Consistent compositions have no
    // queen on an excluded diagonal, so phantoms never attack fixed queens.
    if (c.has_excluded_diagonals()) {
      std::vector<std::uint8_t> off1(static_cast<std::size_t>(lines), 0), off2(static_cast<std::size_t>(lines), 0);
      close_excluded_diagonals(c, off1, off2);  // also drops duplicates
      if (!setup.chunks(lines, [&](std::int64_t from, std::int64_t to) {
            for (auto i = static_cast<std::size_t>(from); i < static_cast<std::size_t>(to); ++i) {
              d1_[i].count += off1[i];
              d2_[i].count += off2[i];
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

  /// Starts a try: places every free row (cols_ is a permutation of the free columns
  /// throughout) and fills the conflict list. Counts one node per placement; returns the
  /// limit hit, with the board left half-built (the search must end there).
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

  /// One repair step: draws a row from the conflict list; if it is conflicted, samples swap
  /// partners (one node each) and makes the first improving swap, else with probability
  /// `noise` the least bad one. Returns the limit hit, else none. Requires energy() > 0,
  /// free_count() >= 2 and partner_samples >= 1.
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
  // The greedy choice for free row a: an index j in [a, f) into the unused columns
  // cols_[a..f). Probes random ones (each once, from a random offset, when no more than
  // `probes` are left); the first conflict-free one wins, else the least conflicted (the
  // first probe among equals: probes are random). Probes go in batches whose lines are
  // prefetched together: at n = 10^6 the line arrays (32 MB) miss the cache, and probing
  // one cell at a time spent three quarters of the run waiting on two dependent misses
  // per probe; a batch overlaps them.
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

  // Line indices in std::size_t: r + c overflows Index for n > 2^30.
  [[nodiscard]] std::size_t d1(Index r, Index c) const {
    return static_cast<std::size_t>(r) + static_cast<std::size_t>(n_ - 1 - c);
  }
  [[nodiscard]] static std::size_t d2(Index r, Index c) {
    return static_cast<std::size_t>(r) + static_cast<std::size_t>(c);
  }
  [[nodiscard]] Line& line1(Index a) {
    return d1_[d1(rows_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(a)])];
  }
  [[nodiscard]] Line& line2(Index a) {
    return d2_[d2(rows_[static_cast<std::size_t>(a)], cols_[static_cast<std::size_t>(a)])];
  }
  [[nodiscard]] bool conflicted(Index a) { return line1(a).count > 1 || line2(a).count > 1; }

  static double unit(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

  // E counts attacking pairs: a queen joining a line with c queens adds c pairs.
  void add(Index a) {
    const auto id = static_cast<std::uint32_t>(a) + 1;
    Line& x = line1(a);
    energy_ += x.count++;
    x.ids ^= id;
    Line& y = line2(a);
    energy_ += y.count++;
    y.ids ^= id;
  }
  void remove(Index a) {
    const auto id = static_cast<std::uint32_t>(a) + 1;
    Line& x = line1(a);
    energy_ -= --x.count;
    x.ids ^= id;
    Line& y = line2(a);
    energy_ -= --y.count;
    y.ids ^= id;
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

  // Keeps the list invariant after an accepted swap of a and b. The four lines a and b now
  // stand on all gained a queen (a swap never puts a row back on a line it or its partner
  // left, since ca != cb and ra != rb); on each, the queens other than a and b were
  // conflict-free before only if there is exactly one of them.
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
    if (!close_lines(composition, used, diff, sum, &setup))
      throw std::invalid_argument("inconsistent composition: " + verify(composition).describe(composition));
  }
  SwapSearch search(composition, used, setup);
  if (setup.hit() != StopReason::none) {
    result.limit = setup.hit();
    return result;
  }
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
