#include "formats/text_input.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "system/errors.hpp"

namespace nqc::text {

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<Line> lines(std::string_view text) {
  std::vector<Line> out;
  std::size_t i = first_byte(text);
  std::int64_t number = 1;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    out.push_back({text.substr(i, end - i), number++});
    if (end < text.size() && text[end] == '\r' && end + 1 < text.size() && text[end + 1] == '\n') ++end;
    i = end + 1;
  }
  return out;
}

std::string normalized(std::string_view text) {
  std::string out;
  for (const Line& line : lines(text)) out.append(line.number > 1 ? "\n" : "").append(line.text);
  return text.ends_with('\n') || text.ends_with('\r') ? out + "\n" : out;
}

std::string escaped(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (const char ch : bytes) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte >= 0x20 && byte < 0x7f) {
      out.push_back(ch);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", byte);
      out += hex;
    }
  }
  return out;
}

std::string quoted(std::string_view bytes, std::size_t max) {
  return "'" + escaped(bytes.substr(0, max)) + (bytes.size() > max ? "...'" : "'");
}

void require_at_most(const std::string& name, std::uintmax_t size, std::uintmax_t max_bytes, const std::string& what,
                     bool at_least) {
  if (size > max_bytes)
    throw InputError(name + ": " + (at_least ? "at least " : "") + std::to_string(size) + " bytes, more than a " +
                     what + " may have (" + std::to_string(max_bytes >> 20) + " MiB)");
}

std::string read_small_file(const std::filesystem::path& file, std::uintmax_t max_bytes, const std::string& what) {
  namespace fs = std::filesystem;
  const std::string name = file.string();
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(name + ": cannot open: is a directory");
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
    throw InputError(name + ": cannot open: not a regular file");
  if (const auto size = fs::file_size(file, ec); !ec) require_at_most(name, size, max_bytes, what);
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw_errno(name + ": cannot open", errno != 0 ? errno : EIO);
  // No further than one byte above the limit: a file may grow meanwhile, or say 0 bytes and
  // read on (/proc/self/pagemap).
  std::string text;
  char piece[1 << 16];
  while (in.read(piece, sizeof piece) || in.gcount() > 0) {
    text.append(piece, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) require_at_most(name, max_bytes + 1, max_bytes, what, true);
  }
  if (in.bad()) throw_errno(name + ": cannot read", errno != 0 ? errno : EIO);
  return text;
}

}  // namespace nqc::text
