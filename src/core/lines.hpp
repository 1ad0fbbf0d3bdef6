// The lines of the board (columns, both diagonal directions) as array indices and the bit sets
// that mark them closed: [Grigoryan]'s control vectors D1 and D2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/composition.hpp"
#include "core/memory.hpp"

namespace nqc {

class SetupWatch;  // core/limit_watch.hpp

/// Index of the diagonal (r - c constant) through 0-based row r and column c of an n x n
/// board: r - c + n - 1, in 0 .. 2n - 2. Computed in 64 bits: exact for every n <= 2^31 - 1
/// (in 32 bits r + n - 1 overflows from n of about 2^30 on).
constexpr std::size_t diff_line(Index n, Index r, Index c) {
  return static_cast<std::size_t>(r) + static_cast<std::size_t>(n) - 1 - static_cast<std::size_t>(c);
}

/// Index of the anti-diagonal (r + c constant) through 0-based row r and column c: r + c, in
/// 0 .. 2n - 2, computed in 64 bits.
constexpr std::size_t sum_line(Index r, Index c) { return static_cast<std::size_t>(r) + static_cast<std::size_t>(c); }

/// Lines per diagonal direction of an n x n board: 2n - 1 (n >= 1), in 64 bits.
constexpr std::size_t diagonal_lines(Index n) { return 2 * static_cast<std::size_t>(n) - 1; }

/// A fixed-size set of bits, 64 to a word: one bit per line keeps random probes in cache far
/// longer than bytes; prefetch() hints the word of bit i for loops that know it some steps ahead.
class Bitset {
 public:
  Bitset() = default;
  explicit Bitset(std::size_t size) { assign(size); }
  /// `size` bits, all clear.
  void assign(std::size_t size) {
    size_ = size;
    w_.assign((size + 63) / 64, 0);
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  /// The number of bits set.
  [[nodiscard]] std::size_t count() const {
    std::size_t c = 0;
    for (const std::uint64_t w : w_) c += static_cast<std::size_t>(__builtin_popcountll(w));
    return c;
  }
  [[nodiscard]] bool test(std::size_t i) const { return ((w_[i >> 6] >> (i & 63)) & 1U) != 0; }
  void set(std::size_t i) { w_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  void reset(std::size_t i) { w_[i >> 6] &= ~(std::uint64_t{1} << (i & 63)); }
  void prefetch(std::size_t i) const { __builtin_prefetch(&w_[i >> 6], 1); }

 private:
  std::size_t size_ = 0;
  std::vector<std::uint64_t, LargeArrayAllocator<std::uint64_t>> w_;
};

/// The lines a composition closes: its queens' columns (`used`, n bits), diagonals (`diff`)
/// and anti-diagonals (`sum`, 2n bits each), and its excluded diagonals; the sets are resized
/// and cleared first. One pass, prefetched some rows ahead. Throws std::invalid_argument
/// "inconsistent composition: " + verify()'s description when the composition is not consistent.
/// With `setup`, polled: a stopped call throws nothing, its sets incomplete.
void close_lines(const Composition& c, Bitset& used, Bitset& diff, Bitset& sum, SetupWatch* setup = nullptr);

/// Sets the bits of `c`'s excluded diagonals (those in 0..2n-2) in `diff` and `sum`.
void close_excluded_diagonals(const Composition& c, Bitset& diff, Bitset& sum);

/// The free rows of `c`, ascending, in a list of exactly their number (no doubling: at
/// n = 10^9 it would hold 12 GB for a moment). With `setup`, polled as close_lines.
std::vector<Index> free_rows_of(const Composition& c, SetupWatch* setup = nullptr);

/// The columns 0..n-1 not in `used` (ascending), in a list of exactly their number. With
/// `setup`, polled as close_lines; a stopped call returns an incomplete list.
std::vector<Index> free_columns_of(const Bitset& used, Index n, SetupWatch* setup = nullptr);

}  // namespace nqc
