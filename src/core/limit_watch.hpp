// Polling an engine's Limits from its hot loop.
#pragma once

#include <chrono>
#include <cstdint>

#include "core/engine.hpp"

namespace nqc {

/// Checks Limits for an engine: max_nodes on every call, the stop flag and the wall clock
/// every `poll_every` calls (a clock read per placement would cost more than the placement
/// on small boards; engines whose steps cost O(f) on f free rows poll more often). It counts
/// its own calls rather than nodes, because some engines check between nodes too (probes,
/// swap evaluations, failed random draws).
class LimitWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LimitWatch(const Limits& limits, std::uint64_t poll_every = 1024)
      : limits_(limits), start_(Clock::now()), poll_every_(poll_every == 0 ? 1 : poll_every) {}

  /// StopReason::none while within limits, else the limit that was hit: max_nodes, stop,
  /// time_limit. Call before each node with the count of nodes done so far.
  StopReason check(std::uint64_t nodes) {
    if (limits_.max_nodes != 0 && nodes >= limits_.max_nodes) return StopReason::max_nodes;
    if (++calls_ < poll_every_) return StopReason::none;
    calls_ = 0;
    return poll();
  }

  /// The node limit (0: none).
  [[nodiscard]] std::uint64_t max_nodes() const { return limits_.max_nodes; }

  /// The stop flag and the time limit only, checked now: StopReason::stop, time_limit or none.
  [[nodiscard]] StopReason poll() const {
    if (limits_.stop != nullptr && limits_.stop->load(std::memory_order_relaxed)) return StopReason::stop;
    if (limits_.time_limit_s > 0.0 &&
        std::chrono::duration<double>(Clock::now() - start_).count() >= limits_.time_limit_s)
      return StopReason::time_limit;
    return StopReason::none;
  }

 private:
  const Limits& limits_;
  Clock::time_point start_;
  std::uint64_t poll_every_;
  std::uint64_t calls_ = 0;
};

/// a + b, or UINT64_MAX when that overflows (budgets from parameters up to UINT64_MAX).
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/// a * b, or UINT64_MAX when that overflows.
constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/// The unit of the Luby restart budgets of the complete searches (exact, bitboard), as
/// parameter rows of both: X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP) (core/param_spec.hpp).
/// The constant is at least 1, so that every run tries a node.
#define NQC_LUBY_PARAMS(X, A)                                                                                         \
  X(A, std::uint64_t, luby_nodes_per_free_row, 2, 0, UINT64_MAX,                                                     \
    "restarts: run i may try (luby_nodes_per_free_row * f + luby_nodes_base) * Luby(i) nodes (f: free rows; Luby: " \
    "1, 1, 2, 1, 1, 2, 4, ...)")                                                                                       \
  X(A, std::uint64_t, luby_nodes_base, 256, 1, UINT64_MAX, "the constant of the restarts' unit (see luby_nodes_per_free_row)")

/// The Luby sequence, 1-based: 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8, ... ([Luby93]):
/// the restart budgets of the complete searches (exact, bitboard) are a unit times luby(run).
inline std::uint64_t luby(std::uint64_t i) {
  for (std::uint64_t k = 1; k < 64; ++k) {
    const std::uint64_t full = (std::uint64_t{1} << k) - 1;
    if (i == full) return std::uint64_t{1} << (k - 1);
    if (i < full) return luby(i - ((std::uint64_t{1} << (k - 1)) - 1));
  }
  return std::uint64_t{1} << 62;
}

/// The node budget of restart `run` (1-based) of a search on `free_rows` free rows:
/// (per_free_row * free_rows + base) * luby(run), saturated at UINT64_MAX.
inline std::uint64_t luby_budget(std::uint64_t per_free_row, std::uint64_t base, std::uint64_t free_rows, std::uint64_t run) {
  return saturating_mul(saturating_add(saturating_mul(per_free_row, free_rows), base), luby(run));
}

}  // namespace nqc
