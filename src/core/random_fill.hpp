// The random phases of [Grigoryan]: randSet & randSet passes, then rand & rand.
#pragma once

#include <cstdint>
#include <vector>

#include "core/composition.hpp"
#include "core/limit_watch.hpp"
#include "core/lines.hpp"
#include "core/rng.hpp"

namespace nqc {

/// What a random fill did.
struct FillStats {
  std::uint64_t placed_pass1 = 0;  ///< queens placed by the first randSet & randSet pass
  std::uint64_t placed = 0;        ///< queens placed in all
  std::uint64_t probes = 0;        ///< (row, column) pairs tried
};

/// A random fill of a composition, in place: queens are written into the composition it was
/// made for (which must outlive it and stay otherwise untouched), and reset() takes them all
/// back. Memory: 6n bits of line sets (the composition's own rows, used columns, both
/// diagonal directions) and 4 bytes per free column during the first pass; no copy of the
/// composition, so the fill of n = 10^9 needs about 4.7 GB beside the composition's 4 GB.
class RandomFill {
 public:
  /// The fill of consistent composition `c` (its queens and its excluded diagonals close
  /// their lines). O(1): the O(n) preparation (its rows, then the line sets) is made by the
  /// first run(), under that run's limits.
  explicit RandomFill(Composition& c);

  /// Call on a new fill or after reset(). Adds queens at random until at most `target_free`
  /// free rows remain or the random phases stall. First randSet & randSet passes ([Grigoryan]: a random matching of the
  /// free rows with the free columns, a queen wherever the pair's cell is free; repeated while a pass places at least
  /// 1/64 of the free rows), then rand & rand (a random free row and a random free column, placed when free; stops
  /// after 16 f consecutive misses, f the free rows left). Unlike [Grigoryan]'s passes, which also visit the pairs in
  /// random order, these visit them in ascending row order: the matching is as random, no list of rows is needed for
  /// the first pass, and the rows are written in order (the first pass on an empty board places 0.608 n instead of
  /// 0.600 n). The random probes of the line sets are prefetched some pairs ahead. With `watch`, polls the stop flag
  /// and time limit about every 2^16 probes, and in the set-up before them (the line sets, the free lines, the first
  /// pass's shuffle: every kSetupChunk steps), and stops at max_nodes: the queens it places are nodes, counted from
  /// `nodes_before` (the caller's so far), and it places none beyond watch->max_nodes(). Returns
  /// the limit hit (the queens placed so far stay), else StopReason::none.
  /// The first run() (and the first after reset()) prepares the line sets; before allocating
  /// them and the lists of free columns and rows it refuses (CapacityError) a fill that can
  /// never fit the memory left (memory_room(): 6 bits per row and 4 bytes per free row).
  /// Throws std::invalid_argument when the composition is inconsistent.
  StopReason run(Index target_free, Rng& rng, FillStats& stats, const LimitWatch* watch = nullptr,
                 std::uint64_t nodes_before = 0);

  /// Free rows and free columns now, ascending board indices (after run()).
  [[nodiscard]] const std::vector<Index>& free_rows() const { return rows_; }
  [[nodiscard]] const std::vector<Index>& free_cols() const { return cols_; }
  /// Closed diagonals now (indices diff_line and sum_line), for ResidualBoard::build.
  [[nodiscard]] const Bitset& diff_closed() const { return d1_; }
  [[nodiscard]] const Bitset& sum_closed() const { return d2_; }

  /// Takes back every queen the fill placed: the composition is as it was given. O(n)
  /// sequential; the line sets are recomputed by the next run().
  void reset();

 private:
  StopReason prepare(SetupWatch& setup);
  void close(Index r, Index c);
  void collect_free_lines(SetupWatch* setup);
  StopReason first_pass(FillStats& stats, const LimitWatch* watch, std::uint64_t can_place);
  StopReason later_passes(Index target_free, Rng& rng, FillStats& stats, const LimitWatch* watch,
                          std::uint64_t nodes_before);

  Composition& c_;
  Index n_;
  Bitset own_;   // rows holding a queen of the composition as given
  Bitset used_;  // columns holding a queen now
  Bitset d1_, d2_;
  std::vector<Index> rows_, cols_;
  bool own_ready_ = false;    // own_ holds the composition's rows
  bool lines_ready_ = false;  // used_, d1_, d2_ hold the composition's lines (and the fill's queens)
};

/// Adds queens to consistent composition `c` in place with RandomFill::run (see there) down
/// to at most `target_free` free rows. `c` stays consistent; the fill may leave it without
/// completion.
FillStats random_fill(Composition& c, Index target_free, Rng& rng);

/// [Grigoryan]'s randSet & randSet experiment on `c`, in place: passes (a uniformly random
/// matching of the free rows with the free columns, visited in random order, a queen wherever
/// the pair's cell is free) until a dead end (no free row has a free cell left) or a full
/// solution. `placed_pass1` is what the first pass placed, the share the paper reports
/// (~0.6 n on the empty board); `placed` all queens placed, so that c.k() is the dead-end
/// composition length. A pass that places nothing is followed by an O(f^2) check for a free
/// cell, f the free rows.
FillStats randset_to_dead_end(Composition& c, Rng& rng);

}  // namespace nqc
