#include "io/text_format.hpp"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>

#include "core/verifier.hpp"
#include "io/errors.hpp"

namespace nqc {
namespace {

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f'; }

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

}  // namespace

LoadedComposition parse_composition(std::string_view text, const std::string& source) {
  LoadedComposition out;
  out.source = source;
  std::vector<std::int64_t> values;
  std::map<std::size_t, std::string> overflow;  // row -> token of values beyond 64 bits
  int line = 1;
  std::size_t i = 0;
  if (text.substr(0, 3) == "\xEF\xBB\xBF") i = 3;  // a UTF-8 byte-order mark, as some editors write
  while (i < text.size()) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      ++i;
    } else if (is_space(ch)) {
      ++i;
    } else if (ch == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else {
      std::size_t end = i;
      while (end < text.size() && !is_space(text[end]) && text[end] != '#') ++end;
      const std::string_view token = text.substr(i, end - i);
      std::int64_t value = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
      if (ec == std::errc::result_out_of_range && ptr == token.data() + token.size()) {
        // Too large for 64 bits: certainly out of range; reported with n once n is known.
        overflow.emplace(values.size(), token.size() > 40 ? std::string(token.substr(0, 37)) + "..." : std::string(token));
        value = -1;
      } else if (ec != std::errc() || ptr != token.data() + token.size()) {
        throw InputError(source + ":" + std::to_string(line) + ": row " + std::to_string(values.size() + 1) +
                         ": expected an integer 0..n, got " + quoted_token(token));
      }
      if (values.size() == static_cast<std::size_t>(std::numeric_limits<Index>::max()))
        throw InputError(source + ": too many values (n must be at most 2147483647)");
      values.push_back(value);
      out.line_of_row.push_back(line);
      i = end;
    }
  }
  if (values.empty())
    throw InputError(source + ": no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  const auto n = static_cast<std::int64_t>(values.size());
  out.composition.q.resize(values.size());
  for (std::size_t r = 0; r < values.size(); ++r) {
    if (values[r] < 0 || values[r] > n) {
      const auto big = overflow.find(r);
      const std::string shown = big != overflow.end() ? big->second : std::to_string(values[r]);
      throw InputError(source + ":" + std::to_string(out.line_of_row[r]) + ": row " + std::to_string(r + 1) +
                       ": value " + shown + " is out of range 0.." + std::to_string(n));
    }
    out.composition.q[r] = static_cast<Index>(values[r]);
  }
  return out;
}

LoadedComposition read_composition(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::string text;
  if (name == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::error_code ec;
    if (std::filesystem::is_directory(file, ec)) throw InputError(name + ": cannot open: is a directory");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw InputError(name + ": cannot open: " + std::strerror(errno));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = std::move(buffer).str();
  }
  return parse_composition(text, name == "-" ? "<stdin>" : name);
}

void require_consistent(const LoadedComposition& loaded) {
  const Verdict v = verify(loaded.composition);
  if (v.ok()) return;
  const int line = loaded.line_of_row[static_cast<std::size_t>(v.row_b)];
  throw InputError(loaded.source + ":" + std::to_string(line) + ": " + v.describe(loaded.composition));
}

void write_composition(const Composition& c, std::ostream& out) {
  out << "# nqc composition: n = " << c.n() << ", k = " << c.k() << "; Q(i) per row, 0 = empty row\n";
  std::string buffer;
  buffer.reserve(1 << 16);
  char digits[16];
  for (const Index v : c.q) {
    const auto [ptr, ec] = std::to_chars(digits, digits + sizeof digits, v);
    buffer.append(digits, ptr);
    buffer.push_back('\n');
    if (buffer.size() > (1 << 16) - 16) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

void write_composition(const Composition& c, const std::filesystem::path& file) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw IoError(file.string() + ": cannot write: " + std::strerror(errno));
  write_composition(c, out);
  out.flush();
  if (!out) throw IoError(file.string() + ": cannot write: " + std::strerror(errno));
}

}  // namespace nqc
