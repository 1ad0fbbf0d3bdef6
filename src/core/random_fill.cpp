#include "core/random_fill.hpp"

#include <vector>

namespace nqc {
namespace {

class Filler {
 public:
  explicit Filler(Composition& c) : c_(c), n_(c.n()) {
    const auto un = static_cast<std::size_t>(n_);
    d1_.assign(2 * un, 0);
    d2_.assign(2 * un, 0);
    for (Index r = 0; r < n_; ++r)
      if (const Index j = c.q[static_cast<std::size_t>(r)]; j != 0) close(r, j - 1);
    close_excluded_diagonals(c, d1_, d2_);
    FreeLines free = free_lines(c);
    rows_ = std::move(free.rows);
    cols_ = std::move(free.cols);
  }

  [[nodiscard]] Index free_rows() const { return static_cast<Index>(rows_.size()); }

  [[nodiscard]] bool has_free_cell() const {
    for (const Index r : rows_)
      for (const Index col : cols_)
        if (!d1_[static_cast<std::size_t>(r - col + n_ - 1)] && !d2_[static_cast<std::size_t>(r + col)]) return true;
    return false;
  }

  // One randSet & randSet pass; returns the number of queens placed.
  std::uint64_t pass(Rng& rng, FillStats& stats) {
    shuffle(rows_.begin(), rows_.end(), rng);
    shuffle(cols_.begin(), cols_.end(), rng);
    std::size_t kept = 0;
    const std::size_t f = rows_.size();
    for (std::size_t i = 0; i < f; ++i) {
      ++stats.probes;
      if (try_place(rows_[i], cols_[i])) continue;
      rows_[kept] = rows_[i];
      cols_[kept] = cols_[i];
      ++kept;
    }
    const std::uint64_t placed = f - kept;
    rows_.resize(kept);
    cols_.resize(kept);
    stats.placed += placed;
    return placed;
  }

  // rand & rand until target or 16 f consecutive misses.
  void rand_rand(Index target_free, Rng& rng, FillStats& stats) {
    std::uint64_t misses = 0;
    while (free_rows() > target_free && misses < 16 * rows_.size()) {
      const std::size_t i = rng.below(rows_.size());
      const std::size_t j = rng.below(cols_.size());
      ++stats.probes;
      if (!try_place(rows_[i], cols_[j])) {
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
  }

 private:
  bool try_place(Index r, Index col) {
    const std::size_t a = static_cast<std::size_t>(r - col + n_ - 1), b = static_cast<std::size_t>(r + col);
    if (d1_[a] || d2_[b]) return false;
    d1_[a] = d2_[b] = 1;
    c_.q[static_cast<std::size_t>(r)] = col + 1;
    return true;
  }
  void close(Index r, Index col) {
    d1_[static_cast<std::size_t>(r - col + n_ - 1)] = 1;
    d2_[static_cast<std::size_t>(r + col)] = 1;
  }

  Composition& c_;
  Index n_;
  std::vector<std::uint8_t> d1_, d2_;
  std::vector<Index> rows_, cols_;
};

}  // namespace

FillStats random_fill(Composition& c, Index target_free, Rng& rng) {
  Filler filler(c);
  FillStats stats;
  bool first = true;
  while (filler.free_rows() > target_free) {
    const auto before = static_cast<std::uint64_t>(filler.free_rows());
    const std::uint64_t placed = filler.pass(rng, stats);
    if (first) stats.placed_pass1 = placed;
    first = false;
    if (placed * 64 < before) break;
  }
  filler.rand_rand(target_free, rng, stats);
  return stats;
}

FillStats randset_to_dead_end(Composition& c, Rng& rng) {
  Filler filler(c);
  FillStats stats;
  stats.placed_pass1 = filler.pass(rng, stats);
  while (filler.free_rows() > 0)
    if (filler.pass(rng, stats) == 0 && !filler.has_free_cell()) break;
  return stats;
}

}  // namespace nqc
