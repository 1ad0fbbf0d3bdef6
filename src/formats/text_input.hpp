// One discipline for every text nqc reads (composition files, CSPLib .param files, JSON
// configs, the results directory's config.json and plan.json): a UTF-8 byte-order mark is
// skipped; LF, CRLF and CR end lines alike; a last line without a line end counts; tabs are
// spaces; and a message shows the bytes it quotes with those that are not printable ASCII as
// \xNN escapes (so that a BOM, a NUL or an escape sequence is visible and cannot drive the
// terminal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace nqc::text {

inline constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";  // UTF-8, as some editors write

/// Where the content starts: after a UTF-8 byte-order mark.
inline std::size_t first_byte(std::string_view text) {
  return text.starts_with(kByteOrderMark) ? kByteOrderMark.size() : 0;
}

/// The whitespace of a line: space, tab, vertical tab, form feed (line ends are gone).
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/// `s` without leading and trailing blanks (is_blank).
std::string_view trim(std::string_view s);

/// One line of a text, without its line end; `number` is 1-based.
struct Line {
  std::string_view text;
  std::int64_t number = 0;
};

/// The lines of `text` after a byte-order mark: LF, CRLF and CR end a line; a last line
/// without a line end counts, an empty text has no lines. The views point into `text`.
std::vector<Line> lines(std::string_view text);

/// `text` with a byte-order mark dropped and every CRLF and CR made LF (for parsers that
/// count lines by LF, such as JSON's: line numbers then match what an editor shows).
std::string normalized(std::string_view text);

/// `bytes` with those that are not printable ASCII (0x20..0x7e) as \xNN.
std::string escaped(std::string_view bytes);

/// The most bytes of a text that a message quotes (quoted).
inline constexpr std::size_t kQuotedBytes = 40;

/// `bytes` for a message: in single quotes, at most `max` bytes (then "..."), escaped.
std::string quoted(std::string_view bytes, std::size_t max = kQuotedBytes);

/// Throws nqc::InputError "NAME: SIZE bytes, more than a WHAT may have (LIMIT)" when `size` is
/// above `max_bytes` (LIMIT in MiB); "NAME: at least SIZE bytes, ..." when `at_least` (a
/// stream, read no further).
void require_at_most(const std::string& name, std::uintmax_t size, std::uintmax_t max_bytes, const std::string& what,
                     bool at_least = false);

/// The whole of a small text file (a config, a .param file). Throws nqc::InputError "FILE:
/// cannot open: is a directory", "... not a regular file" (a FIFO would block), require_at_most's
/// (a file that reads on beyond its size: "at least", read no further); "FILE: cannot open:
/// REASON" and "FILE: cannot read: REASON" as nqc::throw_errno classes the error.
std::string read_small_file(const std::filesystem::path& file, std::uintmax_t max_bytes, const std::string& what);

}  // namespace nqc::text
