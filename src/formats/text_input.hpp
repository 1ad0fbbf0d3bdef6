// One discipline for every text nqc reads (compositions, .param files, JSON configs, a results
// directory's JSON): a UTF-8 byte-order mark is skipped; LF, CRLF and CR end lines alike; a last
// line without a line end counts; tabs are spaces; a message shows quoted bytes that are not
// printable ASCII as \xNN (a BOM, a NUL or an escape sequence is visible, cannot drive a terminal).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace nqc::text {

/// Where the content starts: after a UTF-8 byte-order mark.
inline std::size_t first_byte(std::string_view text) { return text.starts_with("\xEF\xBB\xBF") ? 3 : 0; }

/// The whitespace of a line: space, tab, vertical tab, form feed (line ends are gone).
inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\v' || c == '\f'; }

/// `s` without leading and trailing blanks (is_blank).
std::string_view trim(std::string_view s);

/// One line of a text, without its line end; `number` is 1-based.
struct Line {
  std::string_view text;
  std::int64_t number = 0;
};

/// The lines of `text` after a byte-order mark (views into `text`); an empty text has none.
std::vector<Line> lines(std::string_view text);

/// `text` without a byte-order mark, every CRLF and CR made LF (JSON's line numbers then match).
std::string normalized(std::string_view text);

/// `bytes` with those that are not printable ASCII (0x20..0x7e) as \xNN.
std::string escaped(std::string_view bytes);

/// The most bytes of a text that a message quotes (quoted).
inline constexpr std::size_t kQuotedBytes = 40;

/// `bytes` for a message: in single quotes, at most `max` bytes (then "..."), escaped.
std::string quoted(std::string_view bytes, std::size_t max = kQuotedBytes);

/// Throws nqc::InputError "NAME: [at least ]SIZE bytes, more than a WHAT may have (LIMIT MiB)"
/// when `size` is above `max_bytes` ("at least": a stream, read no further).
void require_at_most(const std::string& name, std::uintmax_t size, std::uintmax_t max_bytes, const std::string& what,
                     bool at_least = false);

/// The whole of a small text file (a config, a .param file), read no further than max_bytes + 1.
/// Throws nqc::InputError "FILE: cannot open: is a directory" / "... not a regular file" (a FIFO
/// would block), require_at_most's; "FILE: cannot open|read: REASON" as nqc::throw_errno.
std::string read_small_file(const std::filesystem::path& file, std::uintmax_t max_bytes, const std::string& what);

}  // namespace nqc::text
