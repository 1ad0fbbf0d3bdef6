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

/// A random fill of a composition, in place (which must outlive it); reset() takes its queens
/// back. Memory: 6n bits of line sets and 4 bytes per free column in the first pass, no copy
/// (n = 10^9: about 4.7 GB beside the composition's 4 GB).
class RandomFill {
 public:
  /// The fill of consistent composition `c`. O(1): the O(n) preparation is made by run().
  explicit RandomFill(Composition& c);

  /// Adds queens at random (on a new fill or after reset()) until at most `target_free` free
  /// rows remain or the random phases stall: randSet & randSet passes ([Grigoryan]; rows in
  /// ascending order against shuffled columns, as random a matching with no list of rows) while
  /// a pass places at least 1/64 of the free rows, then rand & rand until 16 f consecutive misses.
  /// With `watch`, polled (every 2^16 probes and in the set-up), and the queens placed are nodes
  /// counted from `nodes_before`: none beyond watch->max_nodes(). Returns the limit hit (the queens
  /// so far stay), else none. Refuses (CapacityError) a fill that can never fit the memory left;
  /// throws std::invalid_argument when the composition is inconsistent.
  StopReason run(Index target_free, Rng& rng, FillStats& stats, const LimitWatch* watch = nullptr,
                 std::uint64_t nodes_before = 0);

  /// Free rows and free columns now, ascending (after run()); closed diagonals for ResidualBoard::build.
  [[nodiscard]] const std::vector<Index>& free_rows() const { return rows_; }
  [[nodiscard]] const std::vector<Index>& free_cols() const { return cols_; }
  [[nodiscard]] const Bitset& diff_closed() const { return d1_; }
  [[nodiscard]] const Bitset& sum_closed() const { return d2_; }

  /// Takes back every queen the fill placed. O(n); the line sets are recomputed by the next run().
  void reset();

 private:
  StopReason prepare(SetupWatch& setup);
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

/// Adds queens to consistent composition `c` in place with RandomFill::run down to at most
/// `target_free` free rows; `c` may be left without completion.
FillStats random_fill(Composition& c, Index target_free, Rng& rng);

/// [Grigoryan]'s randSet & randSet experiment on `c`, in place: passes (a random matching of
/// the free rows with the free columns, in random order) until a dead end or a solution.
/// `placed_pass1`: the first pass's queens (~0.6 n on the empty board); c.k() the dead end's.
/// Throws std::invalid_argument for an inconsistent composition (close_lines).
FillStats randset_to_dead_end(Composition& c, Rng& rng);

}  // namespace nqc
