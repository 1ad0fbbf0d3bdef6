#include "runner/count.hpp"

namespace nqc {

CountResult count_queens_on_ranks(Index n, const Limits& limits, const MpiSession& session) {
  QueensCounter counter(n, limits);
  const QueensPrefixes listed = counter.list(queens_prefix_depth(n));
  // A list cut short on some rank (clock, stop) differs between ranks: none is counted.
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
  // The highest StopReason code over ranks (stop over time_limit over max_nodes over none).
  const int code = session.allreduce_max(static_cast<int>(counter.limit()));
  out.gave_up = code != 0;
  out.limit = static_cast<StopReason>(code);
  return out;
}

}  // namespace nqc
