#include "formats/text_scan.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#if defined(__SSE2__)
#include <cpuid.h>
#include <emmintrin.h>
#endif

namespace nqc::text {
namespace {

constexpr std::uint64_t kMaxN = kMaxBoardSize;

// Eight decimal digits (byte values 0..9, the first digit in the lowest byte; leading zero
// bytes for fewer digits) as a number, in three multiplications (SWAR, as in
// [Langdale19]'s "parse_eight_digits_unrolled").
[[gnu::always_inline]] inline std::uint64_t eight_digits(std::uint64_t v) {
  v = v * 10 + (v >> 8);
  return (((v & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
          (((v >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
         32;
}

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;

[[gnu::always_inline]] inline std::uint64_t load64(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// The masks that keep the `len` (1..8) digits at the top of a word loaded so that it ends at
// a number's last digit: the bytes before the number cleared, and each digit's ASCII high
// nibble ('0' is 0x30).
constexpr auto kDigitMask = [] {
  std::array<std::uint64_t, 9> m{};
  for (int len = 1; len <= 8; ++len)
    m[static_cast<std::size_t>(len)] = 0x0F0F0F0F0F0F0F0FULL & (~std::uint64_t{0} << (8 * (8 - len)));
  return m;
}();

// The `len` (1..8) digits that end at `last`, as digit values with leading zeros (the layout
// eight_digits reads). Reads the 8 bytes ending at `last`.
[[gnu::always_inline]] inline std::uint64_t digit_word(const char* last, int len) {
  return load64(last - 7) & kDigitMask[static_cast<std::size_t>(len)];
}

// The number written by the `len` (1..16) digits that end at `last`. Reads the 16 bytes
// ending at `last`.
[[gnu::always_inline]] inline std::uint64_t number_ending_at(const char* last, int len) {
  if (len <= 8) return eight_digits(digit_word(last, len));
  return eight_digits(digit_word(last - 8, len - 8)) * 100000000 + eight_digits(digit_word(last, 8));
}

// The number of digits (0..16) at the start of the 16 bytes at `p`: the lowest byte that is
// not a digit is flagged exactly (borrows and carries only run upwards).
[[gnu::always_inline]] inline int digit_run(const char* p) {
  const auto non_digits = [](std::uint64_t w) {
    const std::uint64_t d = w - '0' * kOnes;
    return (d | (d + 0x76 * kOnes)) & (0x80 * kOnes);
  };
  const std::uint64_t lo = non_digits(load64(p));
  const std::uint64_t hi = non_digits(load64(p + 8));
  return lo != 0 ? std::countr_zero(lo) / 8 : hi != 0 ? 8 + std::countr_zero(hi) / 8 : 16;
}

// Bit i set when p[i] (i < 64) is a digit, resp. one of the common spaces ' ', LF, CR, TAB.
struct BlockMasks {
  std::uint64_t digits = 0;
  std::uint64_t spaces = 0;
};

[[gnu::always_inline]] inline BlockMasks classify64(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  for (int k = 0; k < 4; ++k) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i digit =
        _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));
    const __m128i space =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\n'))),
                     _mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\t'))));
    m.digits |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(digit))) << (16 * k);
    m.spaces |= static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(space))) << (16 * k);
  }
#else
  for (int i = 0; i < 64; ++i) {
    const char c = p[i];
    m.digits |= static_cast<std::uint64_t>(c >= '0' && c <= '9') << i;
    m.spaces |= static_cast<std::uint64_t>(c == ' ' || c == '\n' || c == '\r' || c == '\t') << i;
  }
#endif
  return m;
}

// Four numbers of 1..8 digits at once, one digit_word per 64-bit lane (GCC vector
// extensions: AVX2 instructions in fast_pass_avx2, plain code elsewhere): digit pairs,
// quadruples and octets combined lane by lane.
__extension__ typedef std::uint64_t U64x4 __attribute__((vector_size(32)));
__extension__ typedef std::uint32_t U32x8 __attribute__((vector_size(32)));
__extension__ typedef std::uint16_t U16x16 __attribute__((vector_size(32)));
__extension__ typedef std::uint32_t U32x4 __attribute__((vector_size(16)));

[[gnu::always_inline]] inline U32x4 four_numbers(const U64x4& words) {
  U16x16 pairs = reinterpret_cast<U16x16>(words);
  pairs = (pairs & 0xff) * 10 + (pairs >> 8);
  U32x8 quads = reinterpret_cast<U32x8>(pairs);
  quads = (quads & 0xffff) * 100 + (quads >> 16);
  const U64x4 odd = reinterpret_cast<U64x4>(quads) >> 32;
  const U32x8 octets = quads * 10000 + reinterpret_cast<U32x8>(odd);  // in the even lanes
  return __builtin_shufflevector(octets, octets, 0, 2, 4, 6);
}

// Writes values through a raw pointer while a fast pass runs, with the largest value.
struct Sink {
  Index* dst;
  std::uint64_t max_value = 0;
  U32x4 wide_max{0, 0, 0, 0};  ///< of four_numbers' results

  void put(std::uint64_t value) {
    *dst++ = static_cast<Index>(value);  // a value above n is refused after the pass
    max_value = std::max(max_value, value);
  }
};

// Reads the numbers of a clean block (the 64 bytes at p are digits and spaces, p[-1] is no
// digit; the 7 bytes before p and 16 after the block are readable) into `sink`. Returns
// where reading goes on: p + 64, or past a number that runs on beyond the block; or, with
// *bail set, at a number to read token by token (more than 16 digits, or running into a
// byte that cannot end it).
template <bool kWide>
[[gnu::always_inline]] inline const char* split_block(const char* p, std::uint64_t digits, Sink& sink, bool* bail) {
  std::uint64_t starts = digits & ~(digits << 1);
  std::uint64_t ends = digits & ~(digits >> 1);  // the last digit of each number
  const char* runner = nullptr;                  // a number running past the block
  if (digits >> 63) {
    const int s = 63 - std::countl_zero(starts);
    runner = p + s;
    starts &= ~(std::uint64_t{1} << s);
    ends &= ~(std::uint64_t{1} << 63);
  }
  const char* last[4];  // the last digits of the numbers taken
  int len[4];
  const auto take = [&](int i) {
    const int e = std::countr_zero(ends);
    last[i] = p + e;
    len[i] = e - std::countr_zero(starts) + 1;
    starts &= starts - 1;
    ends &= ends - 1;
  };
  const auto one = [&](const char* end, int n) {  // false: bail out
    if (n > 16) return false;
    sink.put(number_ending_at(end, n));
    return true;
  };
  if constexpr (kWide) {
    for (int count = std::popcount(starts); count >= 4; count -= 4) {
      take(0), take(1), take(2), take(3);
      if (std::max({len[0], len[1], len[2], len[3]}) <= 8) {
        const U32x4 values = four_numbers(U64x4{digit_word(last[0], len[0]), digit_word(last[1], len[1]),
                                                digit_word(last[2], len[2]), digit_word(last[3], len[3])});
        std::memcpy(sink.dst, &values, sizeof values);
        sink.dst += 4;
        sink.wide_max = sink.wide_max > values ? sink.wide_max : values;
      } else {
        for (int i = 0; i < 4; ++i)
          if (!one(last[i], len[i])) return *bail = true, last[i] - len[i] + 1;
      }
    }
  }
  while (starts != 0) {
    take(0);
    if (!one(last[0], len[0])) return *bail = true, last[0] - len[0] + 1;
  }
  if (runner == nullptr) return p + 64;
  const int n = digit_run(runner);
  if (n == 16 || !ends_token(runner[n]) || !one(runner + n - 1, n)) return *bail = true, runner;
  return runner + n;
}

// scan, four numbers at a time (kWide) or one.
template <bool kWide>
[[gnu::always_inline]] inline Scan fast_pass_impl(std::string_view text, std::size_t from, std::size_t to,
                                                  Output& out) {
  constexpr std::size_t kGrow = std::size_t{1} << 20;
  const char* const begin = text.data();
  const char* const stop = begin + to;
  // A block at p needs p + 64 <= to, and p + 80 <= the text's end (a number running past
  // the block is read 16 bytes at a time).
  const std::size_t block_room = std::min(to, text.size() >= 16 ? text.size() - 16 : 0);
  const char* const block_end = begin + (block_room >= 64 ? block_room - 63 : 0);
  const char* p = begin + from;
  const char* scalar_until = p;  // no block before here (the last block tried was not clean)
  Sink sink{out.out.data() + out.used, out.max_value};
  Index* limit = out.out.data() + out.out.size();
  const auto room = [&](std::size_t values) {  // false: too many values
    if (static_cast<std::size_t>(limit - sink.dst) >= values) return true;
    const auto used = static_cast<std::size_t>(sink.dst - out.out.data());
    if (used > static_cast<std::size_t>(kMaxN)) return false;
    // At most kGrow more, and no more than the rest of the text can hold (a value takes two
    // bytes at least): a composition of a few rows is not followed by 4 MiB of zeros, 1024 page
    // faults and 3 ms, most of `nqc complete`'s time on it (docs/cli.md, "Start-up").
    const std::size_t rest = static_cast<std::size_t>(begin + text.size() - p) / 2 + 1;
    out.out.resize(std::max(used + values, out.out.size() + std::min(kGrow, rest)));
    sink.dst = out.out.data() + used;
    limit = out.out.data() + out.out.size();
    return true;
  };
  const auto finish = [&](bool clean) {
    out.used = static_cast<std::size_t>(sink.dst - out.out.data());
    for (int i = 0; i < 4; ++i) sink.max_value = std::max<std::uint64_t>(sink.max_value, sink.wide_max[i]);
    out.max_value = sink.max_value;
    return Scan{clean && out.used <= static_cast<std::size_t>(kMaxN), sink.max_value};
  };
  while (p < stop) {
    if (p < block_end && p >= scalar_until) {
      const BlockMasks m = classify64(p);
      if ((m.digits | m.spaces) != ~std::uint64_t{0}) {
        scalar_until = p + 64;
      } else {
        if (!room(64)) return finish(false);
        bool bail = false;
        p = split_block<kWide>(p, m.digits, sink, &bail);
        if (bail) scalar_until = p + 1;  // that number token by token, then blocks again
        continue;
      }
    }
    if (is_space(*p)) {
      ++p;
    } else if (*p == '#') {
      p = begin + skip_comment(text, static_cast<std::size_t>(p - begin));
    } else {
      const Token t = read_token(text, static_cast<std::size_t>(p - begin));
      if (t.kind != Token::integer || t.value < 0 || !room(1)) return finish(false);
      sink.put(static_cast<std::uint64_t>(t.value));
      p += t.text.size();
    }
  }
  return finish(true);
}

Scan fast_pass_portable(std::string_view text, std::size_t from, std::size_t to, Output& out) {
  return fast_pass_impl<false>(text, from, to, out);
}

#if defined(__x86_64__)
// LZCNT (CPUID 0x80000001, ECX bit 5): asked of the processor itself, since clang's
// __builtin_cpu_supports does not know the name "lzcnt" (GCC's does).
bool has_lzcnt() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 5)) != 0;
}

[[gnu::target("avx2,bmi,bmi2,popcnt,lzcnt")]] Scan fast_pass_avx2(std::string_view text, std::size_t from,
                                                                  std::size_t to, Output& out) {
  return fast_pass_impl<true>(text, from, to, out);
}
#endif

}  // namespace

Scan scan(std::string_view text, std::size_t from, std::size_t to, Output& out) {
#if defined(__x86_64__)
  static const bool wide = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
                           __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") && has_lzcnt();
  if (wide) return fast_pass_avx2(text, from, to, out);
#endif
  return fast_pass_portable(text, from, to, out);
}

}  // namespace nqc::text
