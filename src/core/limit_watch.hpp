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

  /// "" while within limits, else the name of the limit that was hit: "max_nodes", "stop",
  /// "time_limit". Call before each node with the count of nodes done so far.
  const char* check(std::uint64_t nodes) {
    if (limits_.max_nodes != 0 && nodes >= limits_.max_nodes) return "max_nodes";
    if (++calls_ < poll_every_) return "";
    calls_ = 0;
    return poll();
  }

  /// The node limit (0: none).
  [[nodiscard]] std::uint64_t max_nodes() const { return limits_.max_nodes; }

  /// The stop flag and the time limit only, checked now.
  [[nodiscard]] const char* poll() const {
    if (limits_.stop != nullptr && limits_.stop->load(std::memory_order_relaxed)) return "stop";
    if (limits_.time_limit_s > 0.0 &&
        std::chrono::duration<double>(Clock::now() - start_).count() >= limits_.time_limit_s)
      return "time_limit";
    return "";
  }

 private:
  const Limits& limits_;
  Clock::time_point start_;
  std::uint64_t poll_every_;
  std::uint64_t calls_ = 0;
};

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

}  // namespace nqc
