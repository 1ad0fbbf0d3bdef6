// The random phases of 000_*: randSet & randSet passes, then rand & rand.
#pragma once

#include <cstdint>

#include "core/composition.hpp"
#include "core/rng.hpp"

namespace nqc {

/// What a random fill did.
struct FillStats {
  std::uint64_t placed_pass1 = 0;  ///< queens placed by the first randSet & randSet pass
  std::uint64_t placed = 0;        ///< queens placed in all
  std::uint64_t probes = 0;        ///< (row, column) pairs tried
};

/// Adds queens to the consistent composition `c` at random until at most `target_free` free
/// rows remain or the random phases stall. First randSet & randSet (000_*: shuffle the free
/// rows and the free columns, pair them in order, place a queen wherever the pair's cell is
/// free; repeat while a pass still places at least 1/64 of the free rows), then rand & rand
/// (a random free row and a random free column, placed when free; stops after 16 f
/// consecutive misses, f the free rows left). O(n) memory; each pass O(f).
/// `c` stays consistent; the fill may leave it without completion.
FillStats random_fill(Composition& c, Index target_free, Rng& rng);

/// 000_*'s randSet & randSet experiment on `c`: passes until a dead end (no free row has a
/// free cell left) or a full solution. `placed_pass1` is what the first pass placed, the
/// share the paper reports (~0.6 n on the empty board); `placed` all queens placed, so that
/// c.k() is the dead-end composition length. A pass that places nothing is followed by an
/// O(f^2) check for a free cell, f the free rows.
FillStats randset_to_dead_end(Composition& c, Rng& rng);

}  // namespace nqc
