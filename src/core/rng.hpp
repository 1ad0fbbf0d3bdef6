// Counter-based seed derivation and the fast generator used everywhere in nqc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

namespace nqc {

/// splitmix64 finaliser ([Steele14]): a bijective 64-bit mix.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Composition id that stands for "the solution itself" in seed derivation.
inline constexpr std::uint64_t kSolutionStream = std::numeric_limits<std::uint64_t>::max();

/// The seed of one case: a pure function of (experiment seed, n, solution id, composition id),
/// so that every rank and rerun draws the same case; kSolutionStream for the solution's own seed.
constexpr std::uint64_t derive_seed(std::uint64_t experiment_seed, std::uint64_t n, std::uint64_t solution_id,
                                    std::uint64_t composition_id) {
  std::uint64_t h = splitmix64(experiment_seed);
  h = splitmix64(h ^ n);
  h = splitmix64(h ^ solution_id);
  return splitmix64(h ^ composition_id);
}

/// xoshiro256** ([Blackman18]), seeded through splitmix64. Satisfies
/// UniformRandomBitGenerator. `stream` separates independent uses of one seed
/// (e.g. composition derivation and the engine's own choices).
class Rng {
 public:
  using result_type = std::uint64_t;

  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0) {
    std::uint64_t x = seed ^ splitmix64(stream + 0x632be59bd9b4e019ULL);
    for (auto& w : s_) w = x = splitmix64(x);
  }

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return std::numeric_limits<result_type>::max(); }

  result_type operator()() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform integer in [0, bound), bound >= 1 (nearly divisionless, [Lemire19]).
  std::uint64_t below(std::uint64_t bound) {
    __uint128_t m = static_cast<__uint128_t>((*this)()) * bound;
    auto low = static_cast<std::uint64_t>(m);
    if (low < bound) {
      const std::uint64_t threshold = (0 - bound) % bound;
      while (low < threshold) {
        m = static_cast<__uint128_t>((*this)()) * bound;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

  /// Uniform integer in [lo, hi], lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(below(static_cast<std::uint64_t>(hi - lo) + 1));
  }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4]{};
};

/// Fisher-Yates shuffle driven by Rng (std::shuffle's draws depend on the library), each draw
/// made kAhead steps before its swap and its element prefetched (twice as fast from 10^7
/// elements on): the same result as the plain loop. shuffle_until asks `stop()` every 2^16
/// steps and returns false, partly shuffled, when it says stop.
template <class It, class Stop>
bool shuffle_until(It first, It last, Rng& rng, Stop&& stop) {
  using Diff = decltype(last - first);
  const Diff size = last - first;
  if (size < 2) return true;
  constexpr Diff kAhead = 16;
  Diff ahead[kAhead];
  // Step s swaps position size - 1 - s with the draw below(size - s).
  const Diff steps = size - 1;
  const auto draw = [&](Diff s) {
    const auto j = static_cast<Diff>(rng.below(static_cast<std::uint64_t>(size - s)));
    __builtin_prefetch(std::addressof(first[j]), 1);
    return j;
  };
  for (Diff s = 0; s < steps && s < kAhead; ++s) ahead[s] = draw(s);
  for (Diff s = 0; s < steps; ++s) {
    if ((s & 0xFFFF) == 0xFFFF && stop()) return false;
    const Diff j = ahead[s % kAhead];
    if (s + kAhead < steps) ahead[s % kAhead] = draw(s + kAhead);
    using std::swap;
    swap(first[size - 1 - s], first[j]);
  }
  return true;
}

template <class It>
void shuffle(It first, It last, Rng& rng) {
  shuffle_until(first, last, rng, [] { return false; });
}

/// A uniform permutation of `v`, twice as fast as shuffle() from 10^7 elements on: every element
/// draws one of 2^b buckets of about 2^20 elements (cache-sized), is scattered into `buffer`
/// by bucket, and each bucket is shuffled in cache; i.i.d. keys with random tie-breaks give a
/// uniform permutation (not shuffle()'s; below 2^21 elements it is shuffle()). `buffer` grows
/// to v's size. Polled like shuffle_until.
template <class T, class Stop>
bool shuffle_bucketed_until(std::vector<T>& v, Rng& rng, std::vector<T>& buffer, Stop&& stop) {
  const std::size_t size = v.size();
  unsigned bits = 0;
  while ((size >> bits) > (std::size_t{1} << 20)) ++bits;
  if (bits == 0) return shuffle_until(v.begin(), v.end(), rng, stop);
  const std::size_t buckets = std::size_t{1} << bits;
  const unsigned shift = 64 - bits;
  std::vector<std::size_t> start(buckets + 1, 0);
  Rng labels = rng;  // the same bucket draws twice: once to count, once to scatter
  for (std::size_t i = 0; i < size; ++i) {
    if ((i & 0xFFFF) == 0xFFFF && stop()) return false;
    ++start[(rng() >> shift) + 1];
  }
  for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
  std::vector<std::size_t> next(start.begin(), start.end() - 1);
  buffer.reserve(size);
  while (buffer.size() < size) {  // zeroed in pieces: 0.4 GB at 10^8 entries take a while to touch
    if (stop()) return false;
    buffer.resize(std::min(size, buffer.size() + (std::size_t{1} << 16)));
  }
  buffer.resize(size);  // a larger buffer (an earlier, longer shuffle) shrinks
  for (std::size_t i = 0; i < size; ++i) {
    if ((i & 0xFFFF) == 0xFFFF && stop()) return false;
    buffer[next[labels() >> shift]++] = v[i];
  }
  for (std::size_t b = 0; b < buckets; ++b)
    if (!shuffle_until(buffer.begin() + static_cast<std::ptrdiff_t>(start[b]),
                       buffer.begin() + static_cast<std::ptrdiff_t>(start[b + 1]), rng, stop))
      return false;
  v.swap(buffer);
  return true;
}

template <class T>
void shuffle_bucketed(std::vector<T>& v, Rng& rng, std::vector<T>& buffer) {
  shuffle_bucketed_until(v, rng, buffer, [] { return false; });
}

}  // namespace nqc
