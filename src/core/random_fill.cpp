#include "core/random_fill.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <string>

namespace nqc {
namespace {

// Pairs are probed this many steps after their lines are prefetched (a randSet pass at n = 10^8:
// 2.2 s plain, 0.6 s prefetched).
constexpr std::size_t kAhead = 32;

// The stop flag and the time limit of `watch`, if any.
StopReason polled(const LimitWatch* watch) { return watch != nullptr ? watch->poll() : StopReason::none; }

// The queens a run may still place before max_nodes, `done` nodes in.
std::uint64_t room_left(const LimitWatch* watch, std::uint64_t done) {
  const std::uint64_t max = watch != nullptr ? watch->max_nodes() : 0;
  return max == 0 ? UINT64_MAX : max > done ? max - done : 0;
}

// Gives the pages of `v` beyond its size back to the system without reallocating (a copy would
// need both buffers at once).
void release_unused(std::vector<Index>& v) {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data() + v.size());
  const auto end = reinterpret_cast<std::uintptr_t>(v.data() + v.capacity());
  const std::uintptr_t first = (begin + page - 1) / page * page, last = end / page * page;
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

// Puts a queen on (r, col) when both its diagonals are open. Without `budget` (max_nodes
// reached) a free cell sets `over` instead.
inline bool try_place(Composition& c, Bitset& d1, Bitset& d2, Index r, Index col, bool budget = true,
                      bool* over = nullptr) {
  const std::size_t a = diff_line(c.n(), r, col), b = sum_line(r, col);
  if (d1.test(a) || d2.test(b)) return false;
  if (!budget) {
    *over = true;
    return false;
  }
  d1.set(a);
  d2.set(b);
  c.q[static_cast<std::size_t>(r)] = col + 1;
  return true;
}

void prefetch_pair(const Bitset& d1, const Bitset& d2, Index n, Index r, Index col) {
  d1.prefetch(diff_line(n, r, col));
  d2.prefetch(sum_line(r, col));
}

// One pass over the pairs (rows[i], cols[i]), the unplaced ones compacted to the front; returns
// the queens placed. With `watch`, polled, at most `room` queens, `hit` the limit that stopped it.
std::uint64_t pass(Composition& c, Bitset& d1, Bitset& d2, std::vector<Index>& rows, std::vector<Index>& cols,
                   const LimitWatch* watch = nullptr, std::uint64_t room = UINT64_MAX, StopReason* hit = nullptr) {
  const std::size_t f = rows.size();
  std::size_t kept = 0;
  bool over = false;
  for (std::size_t i = 0; i < f; ++i) {
    if (watch != nullptr && (i & 0xFFFF) == 0xFFFF)
      if ((*hit = watch->poll()) != StopReason::none) return i - kept;
    if (i + kAhead < f) prefetch_pair(d1, d2, c.n(), rows[i + kAhead], cols[i + kAhead]);
    const Index r = rows[i], col = cols[i];
    if (try_place(c, d1, d2, r, col, i - kept < room, &over)) continue;
    if (over) {
      *hit = StopReason::max_nodes;
      return i - kept;
    }
    rows[kept] = r;
    cols[kept] = col;
    ++kept;
  }
  rows.resize(kept);
  cols.resize(kept);
  return f - kept;
}

}  // namespace

RandomFill::RandomFill(Composition& c) : c_(c), n_(c.n()) {}

// The composition's rows (own_), then its lines (used_, d1_, d2_), each polled and each once:
// reset() keeps own_ and leaves the lines to the next run().
StopReason RandomFill::prepare(SetupWatch& setup) {
  if (setup.stopped()) return setup.hit();
  const Index* q = c_.q.data();
  if (!own_ready_) {
    own_.assign(static_cast<std::size_t>(n_));
    if (!setup.chunks(n_, [&](std::int64_t from, std::int64_t to) {
          for (std::int64_t r = from; r < to; ++r)
            if (q[r] != 0) own_.set(static_cast<std::size_t>(r));
        }))
      return setup.hit();
    own_ready_ = true;
    // The line sets (6 bits per row with own_) and the first pass's list of free columns.
    const auto n = static_cast<std::uint64_t>(n_);
    const std::uint64_t free_rows = n - own_.count();
    require_memory(6 * n / 8 + 4 * free_rows, "the random fill at n = " + std::to_string(n_) + " with " +
                                                  std::to_string(free_rows) +
                                                  " free rows (6 bits per row and 4 bytes per free row)");
  }
  if (!lines_ready_) {
    close_lines(c_, used_, d1_, d2_, &setup);
    if (setup.hit() != StopReason::none) return setup.hit();
    lines_ready_ = true;
  }
  return StopReason::none;
}

StopReason RandomFill::run(Index target_free, Rng& rng, FillStats& stats, const LimitWatch* watch,
                           std::uint64_t nodes_before) {
  SetupWatch setup(watch);
  if (const StopReason hit = prepare(setup); hit != StopReason::none) return hit;
  cols_ = free_columns_of(used_, n_, &setup);
  if (setup.hit() != StopReason::none) return setup.hit();
  rows_.clear();
  if (cols_.size() <= static_cast<std::size_t>(std::max<Index>(target_free, 0))) {
    rows_ = free_rows_of(c_, &setup);
    return setup.hit();
  }
  if (!shuffle_until(cols_.begin(), cols_.end(), rng, [&] { return setup.stopped(); })) return setup.hit();
  if (const StopReason hit = first_pass(stats, watch, room_left(watch, nodes_before + stats.placed));
      hit != StopReason::none)
    return hit;
  rows_ = free_rows_of(c_, &setup);
  if (setup.hit() != StopReason::none) return setup.hit();
  return later_passes(target_free, rng, stats, watch, nodes_before);
}

// First pass without a row list: the i-th free row meets cols_[i] (shuffled), prefetched kAhead
// rows ahead. At most `can_place` queens.
StopReason RandomFill::first_pass(FillStats& stats, const LimitWatch* watch, std::uint64_t can_place) {
  const std::size_t f = cols_.size();
  Index ring[kAhead];
  std::size_t ahead = 0;
  Index cursor = 0;
  const auto next_free_row = [&]() {
    while (cursor < n_ && c_.q[static_cast<std::size_t>(cursor)] != 0) ++cursor;
    return cursor++;
  };
  for (; ahead < kAhead && ahead < f; ++ahead) {
    ring[ahead] = next_free_row();
    prefetch_pair(d1_, d2_, n_, ring[ahead], cols_[ahead]);
  }
  std::size_t kept = 0;
  std::uint64_t placed = 0;
  bool over = false;
  for (std::size_t i = 0; i < f; ++i) {
    const Index r = ring[i % kAhead];
    if (i + kAhead < f) {
      ring[i % kAhead] = next_free_row();
      prefetch_pair(d1_, d2_, n_, ring[i % kAhead], cols_[i + kAhead]);
    }
    const Index col = cols_[i];
    if (try_place(c_, d1_, d2_, r, col, placed < can_place, &over)) {
      ++placed;
    } else if (over) {
      stats.probes += i;
      stats.placed += placed;
      return StopReason::max_nodes;
    } else {
      cols_[kept++] = col;
    }
    if ((i & 0xFFFF) == 0xFFFF)
      if (const StopReason hit = polled(watch); hit != StopReason::none) {
        stats.probes += i + 1;
        stats.placed += placed;
        return hit;
      }
  }
  stats.probes += f;
  stats.placed_pass1 = placed;
  stats.placed += placed;
  cols_.resize(kept);
  release_unused(cols_);
  return StopReason::none;
}

// The passes after the first, on the lists of free rows and columns, down to `target_free`.
StopReason RandomFill::later_passes(Index target_free, Rng& rng, FillStats& stats, const LimitWatch* watch,
                                    std::uint64_t nodes_before) {
  const auto room = [&] { return room_left(watch, nodes_before + stats.placed); };
  // The rows left against the columns left rotated by a random offset: a new random matching
  // every pass for a sequential rotation (a fresh shuffle was a third of the time at n = 10^8).
  while (rows_.size() > static_cast<std::size_t>(target_free)) {
    if (const StopReason hit = polled(watch); hit != StopReason::none) return hit;
    const std::size_t before = rows_.size();
    std::rotate(cols_.begin(), cols_.begin() + static_cast<std::ptrdiff_t>(rng.below(cols_.size())), cols_.end());
    StopReason hit = StopReason::none;
    const std::uint64_t placed = pass(c_, d1_, d2_, rows_, cols_, watch, room(), &hit);
    stats.probes += before;
    stats.placed += placed;
    if (hit != StopReason::none) return hit;
    if (placed * 64 < before) break;
  }
  // rand & rand until the target or 16 f consecutive misses.
  std::uint64_t misses = 0;
  while (rows_.size() > static_cast<std::size_t>(target_free) && misses < 16 * rows_.size()) {
    if ((stats.probes & 0xFFFF) == 0)
      if (const StopReason hit = polled(watch); hit != StopReason::none) return hit;
    const std::size_t i = rng.below(rows_.size());
    const std::size_t j = rng.below(cols_.size());
    ++stats.probes;
    bool over = false;
    if (!try_place(c_, d1_, d2_, rows_[i], cols_[j], room() != 0, &over)) {
      if (over) return StopReason::max_nodes;
      ++misses;
      continue;
    }
    misses = 0;
    ++stats.placed;
    rows_[i] = rows_.back();
    rows_.pop_back();
    cols_[j] = cols_.back();
    cols_.pop_back();
  }
  std::sort(rows_.begin(), rows_.end());
  std::sort(cols_.begin(), cols_.end());
  return StopReason::none;
}

void RandomFill::reset() {
  rows_.clear();
  cols_.clear();
  if (!own_ready_) return;  // nothing was placed
  for (Index r = 0; r < n_; ++r)
    if (!own_.test(static_cast<std::size_t>(r))) c_.q[static_cast<std::size_t>(r)] = 0;
  lines_ready_ = false;
}

FillStats random_fill(Composition& c, Index target_free, Rng& rng) {
  RandomFill fill(c);
  FillStats stats;
  fill.run(target_free, rng, stats);
  return stats;
}

FillStats randset_to_dead_end(Composition& c, Rng& rng) {
  Bitset used, d1, d2;
  close_lines(c, used, d1, d2);
  std::vector<Index> rows = free_rows_of(c), cols = free_columns_of(used, c.n());
  const auto random_pass = [&] {
    shuffle(rows.begin(), rows.end(), rng);
    shuffle(cols.begin(), cols.end(), rng);
    return pass(c, d1, d2, rows, cols);
  };
  const auto has_free_cell = [&] {
    for (const Index r : rows)
      for (const Index col : cols)
        if (!d1.test(diff_line(c.n(), r, col)) && !d2.test(sum_line(r, col))) return true;
    return false;
  };
  FillStats stats;
  stats.probes += rows.size();
  stats.placed_pass1 = random_pass();
  stats.placed = stats.placed_pass1;
  while (!rows.empty()) {
    stats.probes += rows.size();
    const std::uint64_t placed = random_pass();
    stats.placed += placed;
    if (placed == 0 && !has_free_cell()) break;
  }
  return stats;
}

}  // namespace nqc
