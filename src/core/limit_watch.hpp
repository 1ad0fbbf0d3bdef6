// Polling an engine's Limits from its hot loop.
#pragma once

#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/engine.hpp"

namespace nqc {

/// Checks Limits for an engine: max_nodes on every call, the stop flag and the clock every
/// `poll_every` calls (a clock read costs more than a placement on small boards). It counts its
/// own calls, as some engines check between nodes too.
class LimitWatch {
 public:
  using Clock = std::chrono::steady_clock;

  explicit LimitWatch(const Limits& limits, std::uint64_t poll_every = 1024)
      : limits_(limits), start_(Clock::now()), poll_every_(poll_every == 0 ? 1 : poll_every) {}

  /// The limit hit (max_nodes, stop, time_limit), else none. Call before each node with the nodes done.
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

/// Iterations of a set-up pass between two polls: well under a millisecond of work at any n.
inline constexpr std::int64_t kSetupChunk = std::int64_t{1} << 16;

/// The limits as the O(n) set-up passes see them: the stop flag and the time limit of a
/// LimitWatch, polled at the start of every pass and before each chunk of kSetupChunk
/// iterations (max_nodes does not stop a set-up: it places no queen). Once hit it stays hit:
/// every later pass stops at once, its output incomplete. Without a watch it never stops.
class SetupWatch {
 public:
  explicit SetupWatch(const LimitWatch* watch = nullptr) : watch_(watch) {}

  /// Polls now (unless a limit was hit already): true when a limit stops the set-up.
  bool stopped() {
    if (hit_ == StopReason::none && watch_ != nullptr) hit_ = watch_->poll();
    return hit_ != StopReason::none;
  }
  /// The limit that stopped the set-up, else StopReason::none.
  [[nodiscard]] StopReason hit() const { return hit_; }

  /// Runs body(begin, end) over [0, count) in chunks, polling before each: false when stopped.
  template <class Body>
  bool chunks(std::int64_t count, Body&& body) {
    for (std::int64_t begin = 0; begin < count; begin += kSetupChunk) {
      if (stopped()) return false;
      body(begin, std::min(count, begin + kSetupChunk));
    }
    return true;
  }

 private:
  const LimitWatch* watch_;
  StopReason hit_ = StopReason::none;
};

/// A refusal of what can never run (more memory than the process can get, more cells than a
/// structure can index), thrown before allocating: one line; bad input (exit 1).
class CapacityError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// "931 bytes", "12.5 MB", "8.6 GB" (decimal units).
inline std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1000) return std::to_string(bytes) + " bytes";
  const auto b = static_cast<double>(bytes);
  char text[48];
  if (b < 1e6)
    std::snprintf(text, sizeof text, "%.1f kB", b / 1e3);
  else if (b < 1e9)
    std::snprintf(text, sizeof text, "%.1f MB", b / 1e6);
  else
    std::snprintf(text, sizeof text, "%.1f GB", b / 1e9);
  return text;
}

/// What this process can still allocate: the smaller of the machine's memory and swap less its
/// resident set, and the address-space limit (`ulimit -v`) less its address space. It errs
/// towards room: a request beyond it can never be met.
struct MemoryRoom {
  std::uint64_t bytes = UINT64_MAX;  ///< room left
  std::string bound;                 ///< what bounds it, for messages
};

inline MemoryRoom memory_room() {
  std::uint64_t size = 0, resident = 0;
  if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
    unsigned long long pages_size = 0, pages_resident = 0;
    if (std::fscanf(f, "%llu %llu", &pages_size, &pages_resident) == 2) {
      const auto page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
      size = pages_size * page;
      resident = pages_resident * page;
    }
    std::fclose(f);
  }
  MemoryRoom room;
  struct sysinfo info {};
  if (sysinfo(&info) == 0) {
    const std::uint64_t total = (static_cast<std::uint64_t>(info.totalram) + info.totalswap) * info.mem_unit;
    room.bytes = total > resident ? total - resident : 0;
    room.bound = format_bytes(room.bytes) + " left of " + format_bytes(total) + " of memory and swap";
  }
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const auto cap = static_cast<std::uint64_t>(limit.rlim_cur);
    const std::uint64_t left = cap > size ? cap - size : 0;
    if (left < room.bytes) {
      room.bytes = left;
      room.bound = format_bytes(left) + " left under the address-space limit (ulimit -v) of " + format_bytes(cap);
    }
  }
  return room;
}

/// Throws CapacityError "WHAT needs BYTES, more than this process can get (ROOM)" when `bytes`
/// exceed `room` (default: memory_room() now, asked only from 64 MiB on: reading /proc costs
/// some microseconds).
inline void require_memory(std::uint64_t bytes, const std::string& what, const MemoryRoom* room = nullptr) {
  if (room == nullptr && bytes < (std::uint64_t{1} << 26)) return;
  const MemoryRoom left = room != nullptr ? *room : memory_room();
  if (bytes > left.bytes)
    throw CapacityError(what + " needs " + format_bytes(bytes) + ", more than this process can get (" + left.bound +
                        ")");
}

/// a + b, or UINT64_MAX when that overflows (budgets from parameters up to UINT64_MAX).
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// a * b, or UINT64_MAX when that overflows.
constexpr std::uint64_t saturating_mul(std::uint64_t a, std::uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/// The Luby restart parameters of the complete searches (exact, bitboard), as rows:
/// X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP). The constant is at least 1: every run tries a node.
#define NQC_LUBY_PARAMS(X, A, RESTART_NODES, RESTART_GROWTH)                                                         \
  X(A, std::uint64_t, luby_nodes_per_free_row, 2, 0, UINT64_MAX,                                                     \
    "restarts: run i may try (luby_nodes_per_free_row * f + luby_nodes_base) * Luby(i) nodes (f: free rows; Luby: "  \
    "1, 1, 2, 1, 1, 2, 4, ...)")                                                                                     \
  X(A, std::uint64_t, luby_nodes_base, 256, 1, UINT64_MAX,                                                           \
    "the constant of the restarts' unit (see luby_nodes_per_free_row)")                                              \
  X(A, std::uint64_t, luby_restart_nodes, RESTART_NODES, 0, UINT64_MAX,                                              \
    "Luby budgets while fewer nodes than this have been tried in all; then restart_growth")                          \
  X(A, std::uint64_t, restart_growth, RESTART_GROWTH, 0, 1024,                                                       \
    "after the Luby budgets, each run may try (restart_growth - 1) times the nodes of all runs before it (at least " \
    "the unit): an infeasibility proof costs at most about restart_growth / (restart_growth - 1) times one run; 0: " \
    "one last run to the end")

/// The Luby sequence, 1-based: 1, 1, 2, 1, 1, 2, 4, ... ([Luby93]).
inline std::uint64_t luby(std::uint64_t i) {
  for (std::uint64_t k = 1; k < 64; ++k) {
    const std::uint64_t full = (std::uint64_t{1} << k) - 1;
    if (i == full) return std::uint64_t{1} << (k - 1);
    if (i < full) return luby(i - ((std::uint64_t{1} << (k - 1)) - 1));
  }
  return std::uint64_t{1} << 62;
}

/// (per_free_row * free_rows + base) * luby(run), saturated at UINT64_MAX.
inline std::uint64_t luby_budget(std::uint64_t per_free_row, std::uint64_t base, std::uint64_t free_rows,
                                 std::uint64_t run) {
  return saturating_mul(saturating_add(saturating_mul(per_free_row, free_rows), base), luby(run));
}

/// The node budget of run `run` (1-based) after `nodes` nodes: luby_budget while nodes <
/// luby_restart_nodes, then max(unit, (restart_growth - 1) * nodes), or UINT64_MAX (one run to
/// the end) when restart_growth < 2.
template <typename Params>
std::uint64_t restart_budget(const Params& params, std::uint64_t free_rows, std::uint64_t run, std::uint64_t nodes) {
  if (nodes < params.luby_restart_nodes)
    return luby_budget(params.luby_nodes_per_free_row, params.luby_nodes_base, free_rows, run);
  if (params.restart_growth < 2) return UINT64_MAX;
  const std::uint64_t unit = luby_budget(params.luby_nodes_per_free_row, params.luby_nodes_base, free_rows, 1);
  return std::max(unit, saturating_mul(params.restart_growth - 1, nodes));
}

}  // namespace nqc
