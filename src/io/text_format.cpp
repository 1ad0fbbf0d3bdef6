#include "io/text_format.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <thread>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "io/errors.hpp"
#include "io/input_file.hpp"

namespace nqc {
namespace {

constexpr std::int64_t kMaxN = std::numeric_limits<Index>::max();
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";  // UTF-8, as some editors write

// The text format's whitespace; a token (a value) is a run of other bytes up to whitespace or
// '#'. Tables, for the parser's inner loop.
constexpr auto kSpace = [] {
  std::array<bool, 256> t{};
  for (const unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'}) t[c] = true;
  return t;
}();
constexpr auto kEndsToken = [] {
  std::array<bool, 256> t = kSpace;
  t['#'] = true;
  return t;
}();

bool is_space(char c) { return kSpace[static_cast<unsigned char>(c)]; }
bool ends_token(char c) { return kEndsToken[static_cast<unsigned char>(c)]; }

std::size_t first_byte(std::string_view text) { return text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0; }

// Past the comment that starts at `i` (a '#'): its line end (LF or CR), or the end.
std::size_t skip_comment(std::string_view text, std::size_t i) {
  while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
  return i;
}

// A token as the format reads it: an integer (optional '-', then decimal digits) that fits
// 64 bits, digits beyond 64 bits (certainly out of range), or anything else (an error).
struct Token {
  enum Kind { integer, overflow, bad } kind = bad;
  std::int64_t value = 0;
  std::string_view text;
};

Token read_token(std::string_view text, std::size_t i) {
  std::size_t end = i;
  while (end < text.size() && !ends_token(text[end])) ++end;
  Token t;
  t.text = text.substr(i, end - i);
  const char* last = t.text.data() + t.text.size();
  const auto [ptr, ec] = std::from_chars(t.text.data(), last, t.value);
  if (ptr == last && ec == std::errc()) t.kind = Token::integer;
  else if (ptr == last && ec == std::errc::result_out_of_range) t.kind = Token::overflow;
  return t;
}

// Calls visit(token, offset) for every token in order until it returns false.
template <typename Visit>
void for_each_token(std::string_view text, Visit visit) {
  std::size_t i = first_byte(text);
  while (i < text.size()) {
    if (is_space(text[i])) {
      ++i;
    } else if (text[i] == '#') {
      i = skip_comment(text, i);
    } else {
      const Token t = read_token(text, i);
      if (!visit(t, i)) return;
      i += t.text.size();
    }
  }
}

// The 1-based line of byte `offset`: 1 + the line ends (LF, CRLF, CR) before it.
std::int64_t line_at(std::string_view text, std::size_t offset) {
  const std::string_view before = text.substr(0, offset);
  std::int64_t ends = std::count(before.begin(), before.end(), '\n');
  for (std::size_t i = 0; i < before.size(); ++i)  // a CR not followed by LF ends a line too
    ends += before[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n');
  return 1 + ends;
}

// The token for a message: at most 40 bytes, and bytes that are not printable ASCII (NUL,
// escape sequences, the halves of UTF-8 characters) as \xNN, so that a garbage file cannot
// cut the message short or drive the terminal.
std::string quoted_token(std::string_view token) {
  constexpr std::size_t kShown = 40;
  std::string out = "'";
  for (const char ch : token.substr(0, kShown)) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x20 && byte < 0x7f) {
      out.push_back(ch);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out + (token.size() > kShown ? "...'" : "'");
}

// --- the fast pass ---------------------------------------------------------------------------
// Eight decimal digits (byte values 0..9, the first digit in the lowest byte; leading zero
// bytes for fewer digits) as a number, in three multiplications (SWAR, as in Lemire's
// "parse_eight_digits_unrolled").
std::uint64_t eight_digits(std::uint64_t v) {
  v = v * 10 + (v >> 8);
  return (((v & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
          (((v >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >> 32;
}

constexpr std::uint64_t kOnes = 0x0101010101010101ULL;

std::uint64_t load64(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// The number written by the `len` (1..15) digits at `p`; 16 bytes from `p` must be readable.
std::uint64_t digits_value(const char* p, int len) {
  if (len <= 8) return eight_digits((load64(p) - '0' * kOnes) << (64 - 8 * len));
  __extension__ using U128 = unsigned __int128;
  const U128 digits = (static_cast<U128>(load64(p + 8) - '0' * kOnes) << 64) | (load64(p) - '0' * kOnes);
  const U128 aligned = digits << (128 - 8 * len);  // right-aligned: leading zeros, garbage shifted out
  return eight_digits(static_cast<std::uint64_t>(aligned)) * 100000000 + eight_digits(static_cast<std::uint64_t>(aligned >> 64));
}

// The number of digits (0..16) at the start of the 16 bytes at `p`: the lowest byte that is
// not a digit is flagged exactly (borrows and carries only run upwards).
int digit_run(const char* p) {
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

BlockMasks classify64(const char* p) {
  BlockMasks m;
#if defined(__SSE2__)
  for (int k = 0; k < 4; ++k) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(b, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(b, _mm_set1_epi8('9' + 1)));
    const __m128i space = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(b, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(b, _mm_set1_epi8('\n'))),
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

// What a fast pass found. `clean` false: a token that is not a plain number 0..2^63-1, or
// more than 2147483647 values: the exact pass (throw_first_error) names the problem.
struct FastPass {
  bool clean = true;
  std::uint64_t max_value = 0;
};

// Appends the values of text[from, to) to `out` in one pass with no bookkeeping per row but
// the largest value; `from` and `to` are token boundaries (`to` the text's end or a line
// start). 64-byte blocks of digits and spaces only are split into numbers from bit masks
// (the numbers do not wait for each other's lengths), up to 15 digits at a time (SWAR);
// anything else goes token by token. Gives the mapped file's pages back behind it.
FastPass fast_pass(std::string_view text, std::size_t from, std::size_t to, std::vector<Index>& out, const InputFile* in) {
  constexpr std::size_t kGrow = std::size_t{1} << 20;
  constexpr std::size_t kReleaseEvery = std::size_t{64} << 20;
  const char* const begin = text.data();
  const char* const stop = begin + to;
  // A block at p needs p + 64 <= to, and p + 80 <= the text's end (a number running past
  // the block is read 16 bytes at a time).
  const std::size_t block_room = std::min(to, text.size() >= 16 ? text.size() - 16 : 0);
  const char* const block_end = begin + (block_room >= 64 ? block_room - 63 : 0);
  const char* p = begin + from;
  const char* scalar_until = p;  // no block before here (the last block tried was not clean)
  std::size_t released = from;
  out.clear();
  Index* dst = out.data();
  Index* limit = dst;
  std::uint64_t max_value = 0;
  const auto room = [&](std::size_t values) {  // false: too many values
    if (static_cast<std::size_t>(limit - dst) >= values) return true;
    const auto used = static_cast<std::size_t>(dst - out.data());
    if (used > static_cast<std::size_t>(kMaxN)) return false;
    out.resize(used + std::max(kGrow, values));
    dst = out.data() + used;
    limit = out.data() + out.size();
    return true;
  };
  const auto finish = [&](bool clean) {
    out.resize(static_cast<std::size_t>(dst - out.data()));
    if (in != nullptr) in->release(released, static_cast<std::size_t>(p - begin));
    return FastPass{clean && out.size() <= static_cast<std::size_t>(kMaxN), max_value};
  };
  while (p < stop) {
    if (p < block_end && p >= scalar_until) {
      const BlockMasks m = classify64(p);
      if ((m.digits | m.spaces) != ~std::uint64_t{0}) {
        scalar_until = p + 64;
      } else {
        if (!room(64)) return finish(false);
        std::uint64_t starts = m.digits & ~(m.digits << 1);  // p[-1] is no digit
        const char* next = p + 64;
        while (starts != 0) {
          const int s = std::countr_zero(starts);
          starts &= starts - 1;
          const char* t = p + s;
          int len = std::countr_one(m.digits >> s);
          if (s + len == 64) {  // runs past the block
            len = digit_run(t);
            next = t + len;
            if (len == 16 || !ends_token(t[len])) len = 16;
          }
          if (len > 15) {  // read token by token, before the next block
            next = t;
            scalar_until = t + 1;
            break;
          }
          const std::uint64_t value = digits_value(t, len);
          *dst++ = static_cast<Index>(value);  // a value above n is refused after the pass
          max_value = std::max(max_value, value);
        }
        p = next;
        if (static_cast<std::size_t>(p - begin) - released >= kReleaseEvery && in != nullptr) {
          in->release(released, static_cast<std::size_t>(p - begin));
          released = static_cast<std::size_t>(p - begin);
        }
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
      *dst++ = static_cast<Index>(t.value);
      max_value = std::max(max_value, static_cast<std::uint64_t>(t.value));
      p += t.text.size();
    }
  }
  return finish(true);
}

// --- the exact pass, for messages --------------------------------------------------------------
// Finds the first problem as a token-by-token reading reports it: a bad token or too many
// values while reading, then no values, then the first value out of 0..n. Throws it.
[[noreturn]] void throw_first_error(std::string_view text, const std::string& source) {
  std::int64_t rows = 0;
  for_each_token(text, [&](const Token& t, std::size_t offset) {
    if (t.kind == Token::bad)
      throw InputError(source + ":" + std::to_string(line_at(text, offset)) + ": row " + std::to_string(rows + 1) +
                       ": expected an integer 0..n, got " + quoted_token(t.text));
    if (rows == kMaxN) throw InputError(source + ": too many values (n must be at most 2147483647)");
    ++rows;
    return true;
  });
  if (rows == 0)
    throw InputError(source + ": no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  const std::int64_t n = rows;
  rows = 0;
  for_each_token(text, [&](const Token& t, std::size_t offset) {
    ++rows;
    if (t.kind == Token::integer && t.value >= 0 && t.value <= n) return true;
    // Too large for 64 bits: shown as written (cut).
    const std::string shown = t.kind == Token::integer ? std::to_string(t.value)
                              : t.text.size() > 40     ? std::string(t.text.substr(0, 37)) + "..."
                                                       : std::string(t.text);
    throw InputError(source + ":" + std::to_string(line_at(text, offset)) + ": row " + std::to_string(rows) + ": value " +
                     shown + " is out of range 0.." + std::to_string(n));
  });
  throw std::logic_error(source + ": the text parser's passes disagree");  // a bug: the fast pass found a problem
}

// Values expected in `text`, from its first MiB, so that the vector is allocated once.
std::size_t estimated_values(std::string_view text) {
  const std::string_view sample = text.substr(0, std::size_t{1} << 20);
  std::size_t tokens = 0;
  for_each_token(sample, [&](const Token&, std::size_t) { return ++tokens, true; });
  if (tokens == 0 || sample.size() == text.size()) return tokens;
  const double per_byte = static_cast<double>(tokens) / static_cast<double>(sample.size());
  return std::min({static_cast<std::size_t>(per_byte * 1.05 * static_cast<double>(text.size())) + 1024, text.size() / 2 + 1,
                   static_cast<std::size_t>(kMaxN)});
}

// Where the text is cut for parsing in parallel: after the BOM, then after a line feed (never
// inside a token or a comment) near every 1/T of the text, T the hardware threads (at most 8),
// parts of at least 1 MiB; the last bound is the text's end.
std::vector<std::size_t> part_bounds(std::string_view text) {
  constexpr std::size_t kMinPart = std::size_t{1} << 20;
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                      std::clamp<std::size_t>(text.size() / kMinPart, 1, 8));
  std::vector<std::size_t> bounds{first_byte(text)};
  for (std::size_t k = 1; k < threads; ++k) {
    const std::size_t lf = text.find('\n', std::max(bounds.back(), k * (text.size() / threads)));
    if (lf == std::string_view::npos) break;
    bounds.push_back(lf + 1);
  }
  bounds.push_back(text.size());
  return bounds;
}

}  // namespace

LoadedComposition parse_composition(std::shared_ptr<const InputFile> in) {
  LoadedComposition out;
  out.source = in->name();
  out.format = CompositionFormat::text;
  const std::string_view text = in->bytes();
  const std::vector<std::size_t> cuts = part_bounds(text);
  const std::size_t parts = cuts.size() - 1;
  // The first part is read straight into the composition (allocated once for the whole
  // text, in huge pages), the others into their own vectors, appended after.
  std::vector<Index>& q = out.composition.q;
  const std::size_t estimate = estimated_values(text);
  q.reserve(estimate);
  advise_huge_pages(q.data(), q.capacity() * sizeof(Index));
  std::vector<std::vector<Index>> rest(parts);
  std::vector<FastPass> passes(parts);
  std::vector<std::exception_ptr> failures(parts);
  {
    std::vector<std::jthread> workers;
    for (std::size_t k = 1; k < parts; ++k) {
      workers.emplace_back([&, k] {
        try {
          const double share = static_cast<double>(cuts[k + 1] - cuts[k]) / static_cast<double>(text.size());
          rest[k].reserve(static_cast<std::size_t>(share * static_cast<double>(estimate)) + 1024);
          advise_huge_pages(rest[k].data(), rest[k].capacity() * sizeof(Index));
          passes[k] = fast_pass(text, cuts[k], cuts[k + 1], rest[k], in.get());
        } catch (...) {
          failures[k] = std::current_exception();
        }
      });
    }
    passes[0] = fast_pass(text, cuts[0], cuts[1], q, in.get());
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  bool clean = passes[0].clean;
  std::uint64_t max_value = passes[0].max_value;
  for (std::size_t k = 1; k < parts && clean; ++k) {
    clean = passes[k].clean && q.size() + rest[k].size() <= static_cast<std::size_t>(kMaxN);
    max_value = std::max(max_value, passes[k].max_value);
    if (clean) q.insert(q.end(), rest[k].begin(), rest[k].end());
    std::vector<Index>().swap(rest[k]);
  }
  if (!clean || q.empty() || max_value > q.size()) throw_first_error(text, out.source);
  out.text = std::move(in);
  return out;
}

LoadedComposition parse_composition(std::string text, const std::string& source) {
  return parse_composition(InputFile::from_memory(std::move(text), source));
}

std::int64_t line_of_row(const LoadedComposition& loaded, Index row) {
  if (!loaded.text) return 0;
  const std::string_view text = loaded.text->bytes();
  std::int64_t line = 0;
  Index rows = 0;
  for_each_token(text, [&](const Token&, std::size_t offset) {
    if (rows++ < row) return true;
    line = line_at(text, offset);
    return false;
  });
  return line;
}

void write_composition(const Composition& c, std::ostream& out) {
  out << "# nqc composition: n = " << c.n() << ", k = " << c.k() << "; Q(i) per row, 0 = empty row\n";
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kBuffer);
  char digits[16];
  for (const Index v : c.q) {
    const auto [ptr, ec] = std::to_chars(digits, digits + sizeof digits, v);
    buffer.append(digits, ptr);
    buffer.push_back('\n');
    if (buffer.size() > kBuffer - 16) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace nqc
