#include "mpi/count.hpp"

#include <cstring>

namespace nqc {
namespace {

// Limits by name, for a maximum over ranks (0: none).
constexpr const char* kLimitNames[] = {"", "max_nodes", "time_limit", "stop"};

int limit_code(const char* name) {
  for (int i = 1; i < 4; ++i)
    if (std::strcmp(name, kLimitNames[i]) == 0) return i;
  return 0;
}

}  // namespace

CountResult count_queens_on_ranks(Index n, const Limits& limits, const MpiSession& session) {
  QueensCounter counter(n, limits);
  const QueensPrefixes listed = counter.list(queens_prefix_depth(n));
  // Every rank lists the same prefixes, unless the clock or the stop flag cut a rank's
  // list short: then prefix i is not the same on every rank, and none is counted.
  const bool cut = session.allreduce_max(counter.stopped() ? 1 : 0) != 0;
  {
    WorkCounter work(session);
    while (!cut && !counter.stopped()) {
      const std::uint64_t i = work.take();
      if (i >= listed.prefixes.size()) break;
      counter.count(listed.prefixes[i]);
    }
  }  // collective: every rank frees the counter's window
  // The list's own placements and solutions count once, on rank 0.
  const bool lister = session.rank() == 0;
  CountResult out;
  out.completions = session.allreduce_sum(counter.completions() - (lister ? 0 : listed.completions));
  out.nodes = session.allreduce_sum(counter.nodes() - (lister ? 0 : listed.nodes));
  const int code = session.allreduce_max(limit_code(counter.limit()));
  out.gave_up = code != 0;
  out.limit = kLimitNames[code];
  return out;
}

}  // namespace nqc
