#include "core/counting.hpp"

#include <chrono>
#include <stdexcept>

#include "core/engines/exact.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

// Bit c of a mask is board column c (0-based). Diagonal masks are shifted one column per
// row: `down_right` holds the columns attacked in the next row along r - c = const, and
// `down_left` along r + c = const.
class MaskCounter {
 public:
  MaskCounter(const Composition& c, const Limits& limits) : q_(c.q), limits_(limits), start_(std::chrono::steady_clock::now()) {
    n_ = c.n();
    full_ = n_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n_) - 1;
    // Cells on excluded diagonals, per row.
    blocked_.assign(static_cast<std::size_t>(n_), 0);
    for (const Index a : c.excluded_difference)
      for (Index r = 0; r < n_; ++r)
        if (const Index col = r - a + n_ - 1; col >= 0 && col < n_) blocked_[static_cast<std::size_t>(r)] |= std::uint64_t{1} << col;
    for (const Index a : c.excluded_sum)
      for (Index r = 0; r < n_; ++r)
        if (const Index col = a - r; col >= 0 && col < n_) blocked_[static_cast<std::size_t>(r)] |= std::uint64_t{1} << col;
  }

  CountResult run() {
    count(0, 0, 0, 0);
    return out_;
  }

 private:
  void count(Index row, std::uint64_t cols, std::uint64_t down_right, std::uint64_t down_left) {
    if (row == n_) {
      ++out_.completions;
      return;
    }
    std::uint64_t free = ~(cols | down_right | down_left | blocked_[static_cast<std::size_t>(row)]) & full_;
    const Index given = q_[static_cast<std::size_t>(row)];
    if (given != 0) free &= std::uint64_t{1} << (given - 1);  // a given queen: its cell or nothing
    while (free != 0) {
      const std::uint64_t bit = free & (0 - free);  // lowest set bit
      free ^= bit;
      if ((out_.nodes & 0xffff) == 0 || (limits_.max_nodes != 0 && out_.nodes >= limits_.max_nodes)) check_limits();
      if (stopped_) return;
      ++out_.nodes;
      count(row + 1, cols | bit, ((down_right | bit) << 1) & full_, (down_left | bit) >> 1);
    }
  }

  void check_limits() {
    const char* hit = "";
    if (limits_.max_nodes != 0 && out_.nodes >= limits_.max_nodes) hit = "max_nodes";
    else if (limits_.stop != nullptr && limits_.stop->load(std::memory_order_relaxed)) hit = "stop";
    else if (limits_.time_limit_s > 0 &&
             std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >= limits_.time_limit_s)
      hit = "time_limit";
    if (*hit == '\0') return;
    stopped_ = true;
    out_.gave_up = true;
    out_.limit = hit;
  }

  const std::vector<Index>& q_;
  const Limits& limits_;
  std::chrono::steady_clock::time_point start_;
  Index n_ = 0;
  std::uint64_t full_ = 0;
  std::vector<std::uint64_t> blocked_;
  CountResult out_;
  bool stopped_ = false;
};

}  // namespace

CountResult count_completions(const Composition& composition, const Limits& limits) {
  if (const Verdict v = verify(composition); !v.ok())
    throw std::invalid_argument("inconsistent composition: " + v.describe(composition));
  if (composition.n() <= 64) return MaskCounter(composition, limits).run();
  return count_completions_reduced(composition, limits);
}

}  // namespace nqc
