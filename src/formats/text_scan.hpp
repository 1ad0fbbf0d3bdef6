// The text format's tokens, and its fast pass: the numbers of a piece of text into a vector,
// 64 bytes at a time. Used by text_format.cpp (which reads files in pieces, in parallel, and
// words the messages).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/composition.hpp"
#include "formats/text_input.hpp"

namespace nqc::text {

// The text format's whitespace; a token (a value) is a run of other bytes up to whitespace or
// '#'. Tables, for the parser's inner loop.
inline constexpr auto kSpace = [] {
  std::array<bool, 256> t{};
  for (const unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'}) t[c] = true;
  return t;
}();
inline constexpr auto kEndsToken = [] {
  std::array<bool, 256> t = kSpace;
  t['#'] = true;
  return t;
}();

inline bool is_space(char c) { return kSpace[static_cast<unsigned char>(c)]; }
inline bool ends_token(char c) { return kEndsToken[static_cast<unsigned char>(c)]; }

// Past the comment that starts at `i` (a '#'): its line end (LF or CR), or the end.
inline std::size_t skip_comment(std::string_view text, std::size_t i) {
  while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
  return i;
}

// A token as the format reads it: an integer (optional '-', then decimal digits) that fits
// 64 bits, digits beyond 64 bits (certainly out of range), or anything else (an error). The
// text of a bad token longer than a message quotes (kQuotedBytes) is cut after kQuotedBytes +
// 1 bytes when its first bad byte is among them: it is bad whatever follows, and a run of
// bytes without whitespace (a file of NUL bytes) is not read to its end.
struct Token {
  enum Kind { integer, overflow, bad } kind = bad;
  std::int64_t value = 0;
  std::string_view text;
};

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

inline Token read_token(std::string_view text, std::size_t i) {
  constexpr std::size_t kShown = kQuotedBytes + 1;
  std::size_t end = i;
  const std::size_t probe = std::min(text.size(), i + kShown);
  while (end < probe && !ends_token(text[end])) ++end;
  Token t;
  if (end == probe && end < text.size() && !ends_token(text[end])) {  // longer than a message shows
    const std::string_view shown = text.substr(i, kShown);
    if (std::any_of(shown.begin() + (shown[0] == '-' ? 1 : 0), shown.end(), [](char c) { return !is_digit(c); })) {
      t.text = shown;
      return t;
    }
    while (end < text.size() && !ends_token(text[end])) ++end;
  }
  t.text = text.substr(i, end - i);
  const char* last = t.text.data() + t.text.size();
  const auto [ptr, ec] = std::from_chars(t.text.data(), last, t.value);
  if (ptr == last && ec == std::errc())
    t.kind = Token::integer;
  else if (ptr == last && ec == std::errc::result_out_of_range)
    t.kind = Token::overflow;
  return t;
}

/// How a message shows a value out of range: an integer in decimal, digits beyond 64 bits as
/// written (cut to kQuotedBytes - 3 and "..." when longer than kQuotedBytes).
inline std::string shown_value(const Token& t) {
  if (t.kind == Token::integer) return std::to_string(t.value);
  if (t.text.size() > kQuotedBytes) return std::string(t.text.substr(0, kQuotedBytes - 3)) + "...";
  return std::string(t.text);
}

/// Where scan writes: out[0, used) holds the values so far (the vector grows a chunk at a
/// time, zero-filled; cut it to `used` when done), and the largest of them.
struct Output {
  std::vector<Index>& out;
  std::size_t used = 0;
  std::uint64_t max_value = 0;
};

/// What scan found: `clean` false at a token that is not a plain number 0..2^63-1 (a bad
/// token, a negative number, digits beyond 64 bits), or beyond 2147483647 values; the caller
/// then reads the text token by token to word the message.
struct Scan {
  bool clean = true;
  std::uint64_t max_value = 0;  ///< the largest value in out.out[0, out.used)
};

/// Appends the values of text[from, to) to `out` in one pass, with no bookkeeping per row but
/// the largest value; `from` and `to` are token boundaries outside comments. 64-byte blocks
/// of digits and spaces only are split into numbers from bit masks (the numbers do not wait
/// for each other's lengths), four at a time with AVX2 (checked at run time) or one at a time
/// (SWAR); anything else goes token by token (read_token). Reads within `text` and the 7
/// bytes before it, which must be readable.
Scan scan(std::string_view text, std::size_t from, std::size_t to, Output& out);

}  // namespace nqc::text
