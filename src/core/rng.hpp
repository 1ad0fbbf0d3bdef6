// Counter-based seed derivation and the fast generator used everywhere in nqc.
#pragma once

#include <cstdint>
#include <limits>

namespace nqc {

/// splitmix64 finaliser (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective 64-bit mix.
constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Composition id that stands for "the solution itself" in seed derivation.
inline constexpr std::uint64_t kSolutionStream = std::numeric_limits<std::uint64_t>::max();

/// The seed of one case: a pure function of (experiment seed, n, solution id,
/// composition id), so that every rank and every rerun draws the same case
/// (DESIGN.md, "Random numbers"). Pass kSolutionStream as composition id for the seed
/// that generates the solution itself.
constexpr std::uint64_t derive_seed(std::uint64_t experiment_seed, std::uint64_t n,
                                    std::uint64_t solution_id, std::uint64_t composition_id) {
  std::uint64_t h = splitmix64(experiment_seed);
  h = splitmix64(h ^ n);
  h = splitmix64(h ^ solution_id);
  return splitmix64(h ^ composition_id);
}

/// xoshiro256** (Blackman and Vigna, 2018), seeded through splitmix64. Satisfies
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

  /// Uniform integer in [0, bound), bound >= 1 (Lemire's nearly divisionless method).
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

/// Fisher-Yates shuffle driven by Rng (std::shuffle's draws are implementation-defined,
/// which would make results depend on the standard library).
template <class It>
void shuffle(It first, It last, Rng& rng) {
  const auto size = last - first;
  for (decltype(last - first) i = size - 1; i > 0; --i) {
    const auto j = static_cast<decltype(i)>(rng.below(static_cast<std::uint64_t>(i) + 1));
    using std::swap;
    swap(first[i], first[j]);
  }
}

}  // namespace nqc
