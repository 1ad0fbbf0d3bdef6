#include "core/counting.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/residual_board.hpp"

namespace nqc {
namespace {

// Placements between two polls of the clock and the stop flag: about 6 ms at 6 ns each.
constexpr std::uint64_t kPollNodes = std::uint64_t{1} << 20;

}  // namespace

int queens_prefix_depth(Index n) { return n >= 22 ? 4 : 3; }

QueensCounter::QueensCounter(Index n, const Limits& limits) : n_(n), last_(n - 1), limits_(limits), watch_(limits_) {
  if (n < 1 || n > 64) throw std::invalid_argument("QueensCounter: n must be 1..64, got " + std::to_string(n));
  full_ = n == 64 ? ~u64{0} : (u64{1} << n) - 1;
  topbit_ = u64{1} << last_;
  // most_below_[row]: M(n - row), saturated (M(21) > 2^64 / 2).
  for (int row = last_; row >= 0; --row) {
    const auto k = static_cast<u64>(n - row);
    const u64 below = most_below_[static_cast<std::size_t>(row) + 1];
    most_below_[static_cast<std::size_t>(row)] = below >= (u64{1} << 57) ? below : k * (1 + below);
  }
}

bool QueensCounter::fits(u64 need) {
  if (nodes_ + need <= stop_at_) return true;
  // A subtree larger than a poll interval is checked placement by placement anyway: no
  // clock read for it (the top rows would read it at every placement). Near max_nodes the
  // subtree is checked too, but max_nodes stops only a placement (refill): a subtree that
  // turns out to need none must not stop the count.
  if (need > kPollNodes / 2 || !poll()) return false;
  return nodes_ + need <= stop_at_;
}

bool QueensCounter::refill() {
  if (stopped()) return false;
  if (limits_.max_nodes != 0 && nodes_ >= limits_.max_nodes) {
    hit_ = StopReason::max_nodes;
    stop_at_ = 0;
    return false;
  }
  return poll();
}

bool QueensCounter::poll() {
  if (stopped()) return false;
  hit_ = watch_.poll();
  if (stopped()) {
    stop_at_ = 0;
    return false;
  }
  stop_at_ = nodes_ + kPollNodes;
  if (limits_.max_nodes != 0) stop_at_ = std::min(stop_at_, limits_.max_nodes);
  return true;
}

void QueensCounter::set_subproblem(bool corner, int bound1) {
  corner_ = corner;
  bound1_ = bound1;
  if (corner) {
    bound2_ = -1;
    return;
  }
  bound2_ = last_ - bound1;
  sidemask_ = topbit_ | 1;
  // The bound1 columns nearest each side: the last row's queen, nearer a corner than row
  // 0's, would make another turn of the board the representative.
  const u64 low = (u64{1} << bound1) - 1;
  lastmask_ = low | (low << (n_ - bound1));
  endbit_ = u64{1} << (last_ - bound1);
}

void QueensCounter::emit(int row, u64 left, u64 down, u64 right) {
  QueensPrefix p;
  p.left = left;
  p.down = down;
  p.right = right;
  p.corner = corner_ ? 1 : 0;
  p.bound1 = static_cast<std::uint8_t>(bound1_);
  p.row = static_cast<std::uint8_t>(row);
  for (int r = 0; r < row; ++r)
    p.cols[static_cast<std::size_t>(r)] =
        static_cast<std::uint8_t>(__builtin_ctzll(board_[static_cast<std::size_t>(r)]));
  out_->prefixes.push_back(p);
}

// Which of the symmetric solutions the inner subproblem keeps: 0 when a quarter turn that
// keeps row 0's queen is smaller (that one is counted), else its orbit's size: 2, 4 or 8.
int QueensCounter::orbit_weight() const {
  // A turn keeps row 0's queen (column bound1) in place only when row bound2's queen is in
  // column 0 (quarter turn), the last row's in column n-1-bound1 (half turn) or row
  // bound1's in column n-1 (three-quarter turn): most solutions meet none of these.
  if (board_[static_cast<std::size_t>(bound2_)] != 1 && board_[static_cast<std::size_t>(last_)] != endbit_ &&
      board_[static_cast<std::size_t>(bound1_)] != topbit_)
    return 8;
  std::array<int, 64> col{}, row_of{};
  for (int r = 0; r <= last_; ++r) {
    col[static_cast<std::size_t>(r)] = __builtin_ctzll(board_[static_cast<std::size_t>(r)]);
    row_of[static_cast<std::size_t>(col[static_cast<std::size_t>(r)])] = r;
  }
  const auto at = [](const std::array<int, 64>& a, int i) { return a[static_cast<std::size_t>(i)]; };
  // -1: the board is smaller than its turn, 0: equal, 1: larger; 2: the turn moves row 0's
  // queen (not comparable: its own subproblem holds it).
  const auto compare = [&](auto turned) {
    if (turned(0) != at(col, 0)) return 2;
    for (int r = 1; r <= last_; ++r)
      if (const int c = turned(r); c != at(col, r)) return at(col, r) < c ? -1 : 1;
    return 0;
  };
  // A queen on (r, c) goes to (c, n-1-r) under the quarter turn, (n-1-r, n-1-c) under the
  // half turn, (n-1-c, r) under the three-quarter turn.
  const int quarter = compare([&](int r) { return last_ - at(row_of, r); });
  if (quarter == 1) return 0;
  if (quarter == 0) return 2;
  const int half = compare([&](int r) { return last_ - at(col, last_ - r); });
  if (half == 1) return 0;
  if (half == 0) return 4;
  if (compare([&](int r) { return at(row_of, last_ - r); }) == 1) return 0;
  return 8;
}

void QueensCounter::solution(u64 last_bit) {
  board_[static_cast<std::size_t>(last_)] = last_bit;
  switch (orbit_weight()) {
    case 2: ++c2_; break;
    case 4: ++c4_; break;
    case 8: ++c8_; break;
    default: break;
  }
}

// Rows n-2 and n-1: two columns a < b are left, taken in one of two orders, both decided
// without a branch. Checked: near the node budget, one placement at a time (max_nodes exact).
template <bool Corner, bool Checked>
inline void QueensCounter::last_two_rows(int y, u64 left, u64 down, u64 right, u64 free) {
  const u64 rest = full_ & ~down;
  const u64 a = rest & (0 - rest), b = rest ^ a;
  if (!Checked || fits(4)) [[likely]] {
    const u64 try_a = (free & a) != 0, try_b = (free & b) != 0;
    const u64 a_then_b = try_a & static_cast<u64>((b & (((left | a) << 1) | ((right | a) >> 1))) == 0);
    const u64 b_then_a = try_b & static_cast<u64>((a & (((left | b) << 1) | ((right | b) >> 1))) == 0);
    nodes_ += try_a + try_b + a_then_b + b_then_a;
    if constexpr (Corner) {
      c8_ += a_then_b + b_then_a;
    } else {
      const u64 keep_ab = a_then_b & static_cast<u64>((b & lastmask_) == 0);
      const u64 keep_ba = b_then_a & static_cast<u64>((a & lastmask_) == 0);
      if ((keep_ab | keep_ba) != 0) [[unlikely]] {
        if (keep_ab != 0) {
          board_[static_cast<std::size_t>(y)] = a;
          solution(b);
        }
        if (keep_ba != 0) {
          board_[static_cast<std::size_t>(y)] = b;
          solution(a);
        }
      }
    }
    return;
  }
  for (u64 f = free; f != 0; f &= f - 1) {
    const u64 bit = f & (0 - f);
    if (!may_place()) return;
    ++nodes_;
    const u64 last_free = full_ & ~(((left | bit) << 1) | down | bit | ((right | bit) >> 1));
    if (last_free == 0) continue;
    if (!may_place()) return;
    ++nodes_;
    if constexpr (Corner) {
      ++c8_;
    } else if ((last_free & lastmask_) == 0) {
      board_[static_cast<std::size_t>(y)] = bit;
      solution(last_free);
    }
  }
}

// Row y of a subproblem, its free cells `free` (before the subproblem's bounds). Recursive and
// `inline`: GCC inlines it into itself, 15% faster than out of line.
// Checked: placements are checked against the node budget; a subtree of k rows holds at most
// M(k) = k (1 + M(k-1)) placements, so once that fits it runs unchecked (the checks cost 7%).
// List: stop at row cutoff_ and emit a prefix instead.
template <bool Corner, bool List, bool Checked>
inline void QueensCounter::search(int y, u64 left, u64 down, u64 right, u64 free) {
  if constexpr (Corner) {
    if (y < bound1_) free &= ~u64{2};  // column 1 above row bound1: the diagonal reflection
  } else {
    if (y < bound1_) {
      free &= ~sidemask_;  // the side queens no nearer a corner than row 0's
    } else if (y == bound2_) {
      // Both side columns are taken by row bound2 (the mirror of the bound above): neither
      // yet, prune; one, this row takes the other.
      const u64 sides = down & sidemask_;
      if (sides == 0) return;
      if (sides != sidemask_) free &= sidemask_;
    }
  }
  if (y + 1 == last_) {
    last_two_rows<Corner, Checked>(y, left, down, right, free);
    return;
  }
  while (free != 0) {
    const u64 bit = free & (0 - free);  // the lowest free column
    free ^= bit;
    if constexpr (Checked) {
      if (!may_place()) return;
    }
    ++nodes_;
    if constexpr (!Corner || List) board_[static_cast<std::size_t>(y)] = bit;
    const u64 l = (left | bit) << 1, d = down | bit, r = (right | bit) >> 1;
    const u64 next = full_ & ~(l | d | r);
    if (next == 0) continue;  // cheaper here than in a call
    if constexpr (List) {
      if (y + 1 == cutoff_) {
        emit(y + 1, l, d, r);
        continue;
      }
    }
    if constexpr (Checked) {
      if (fits(most_below_[static_cast<std::size_t>(y + 1)])) {
        search<Corner, List, false>(y + 1, l, d, r, next);
      } else {
        if (stopped()) return;
        search<Corner, List, true>(y + 1, l, d, r, next);
      }
    } else {
      search<Corner, List, false>(y + 1, l, d, r, next);
    }
  }
}

QueensPrefixes QueensCounter::list(int depth) {
  QueensPrefixes out;
  out_ = &out;
  cutoff_ = std::clamp(depth, 1, kMaxPrefixRows);
  const u64 nodes0 = nodes_, found0 = completions();
  const auto start = [&](bool corner, int row, u64 left, u64 down, u64 right) {
    if (row >= cutoff_) {
      emit(row, left, down, right);
    } else if (corner) {
      search<true, true, true>(row, left, down, right, full_ & ~(left | down | right));
    } else {
      search<false, true, true>(row, left, down, right, full_ & ~(left | down | right));
    }
  };
  if (n_ == 1) {
    if (may_place()) {
      ++nodes_;
      ++plain_;
    }
  } else {
    // Corner: row 0's queen in column 0 (one placement), row 1's in column bound1.
    if (n_ >= 4 && may_place()) {
      ++nodes_;
      board_[0] = 1;
      for (int b = 2; b <= n_ - 2 && may_place(); ++b) {
        ++nodes_;
        set_subproblem(true, b);
        const u64 bit = u64{1} << b;
        board_[1] = bit;
        start(true, 2, (2 | bit) << 1, 1 | bit, bit >> 1);
      }
    }
    // Inner: row 0's queen in column bound1, 1 <= bound1 < bound2 = n-1-bound1.
    for (int b = 1; 2 * b < last_ && may_place(); ++b) {
      ++nodes_;
      set_subproblem(false, b);
      const u64 bit = u64{1} << b;
      board_[0] = bit;
      start(false, 1, bit << 1, bit, bit >> 1);
    }
  }
  out.nodes = nodes_ - nodes0;
  out.completions = completions() - found0;
  out_ = nullptr;
  return out;
}

void QueensCounter::count(const QueensPrefix& p) {
  if (stopped()) return;
  set_subproblem(p.corner != 0, p.bound1);
  for (int r = 0; r < p.row; ++r) board_[static_cast<std::size_t>(r)] = u64{1} << p.cols[static_cast<std::size_t>(r)];
  const u64 free = full_ & ~(p.left | p.down | p.right);
  if (p.corner != 0)
    search<true, false, true>(p.row, p.left, p.down, p.right, free);
  else
    search<false, false, true>(p.row, p.left, p.down, p.right, free);
}

CountResult count_completions(const Composition& composition, const Limits& limits) {
  const Index n = composition.n();
  // The queens, counted under the limits (an O(n) pass); the search that follows checks the
  // composition (std::invalid_argument when inconsistent): the line sets of its set-up.
  std::int64_t k = 0;
  {
    const LimitWatch watch(limits);
    SetupWatch setup(&watch);
    const Index* q = composition.q.data();
    if (!setup.chunks(n, [&](std::int64_t from, std::int64_t to) {
          for (std::int64_t r = from; r < to; ++r) k += q[r] != 0 ? 1 : 0;
        }))
      return {.gave_up = true, .limit = setup.hit()};
  }
  if (n <= 64 && k == 0 && !composition.has_excluded_diagonals()) {
    QueensCounter counter(n, limits);
    const QueensPrefixes listed = counter.list(queens_prefix_depth(n));
    for (const QueensPrefix& p : listed.prefixes) counter.count(p);
    return {counter.completions(), counter.nodes(), counter.stopped(), counter.limit()};
  }
  if (n - k <= kBitboardMaxFree) return count_bitboard(composition, limits);
  try {
    return count_completions_reduced(composition, limits);
  } catch (const CapacityError& e) {
    throw CapacityError(std::string("cannot count the completions: ") + e.what());
  }
}

void require_countable_empty_board(Index n) {
  if (n <= kBitboardMaxFree) return;
  try {
    ResidualBoard::require_fits(n, n, n, static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n),
                                5 * static_cast<std::uint64_t>(n) / 8 + 12 * static_cast<std::uint64_t>(n));
  } catch (const CapacityError& e) {
    const std::string size = std::to_string(n);
    throw CapacityError("cannot count the empty " + size + " x " + size + " board: " + e.what());
  }
}

}  // namespace nqc
