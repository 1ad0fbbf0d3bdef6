#include "io/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "io/errors.hpp"
#include "io/input_file.hpp"
#include "io/text_scan.hpp"

namespace nqc {
namespace {

using text::first_byte;
using text::is_space;
using text::read_token;
using text::skip_comment;
using text::Token;

constexpr std::int64_t kMaxN = std::numeric_limits<Index>::max();

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

// Where a piece of text read so far may be cut so that its rest is read with what follows:
// after its last line end; on a single line (not in a comment where the piece begins), at
// its first '#', else after its last space. 0 when there is no such place yet.
std::size_t safe_cut(std::string_view piece) {
  for (std::size_t i = piece.size(); i > 0; --i)
    if (piece[i - 1] == '\n' || piece[i - 1] == '\r') return i;
  if (const std::size_t hash = piece.find('#'); hash != std::string_view::npos) return hash;
  for (std::size_t i = piece.size(); i > 0; --i)
    if (is_space(piece[i - 1])) return i;
  return 0;
}

// Reads the values of bytes from .. to - 1 of `in` (a line start or the start of the values,
// and a line start or the end) into `out`: copied 256 KiB at a time into a buffer that stays
// in the processor's cache, each piece cut where no token or comment is split.
text::Scan read_part(const InputFile& in, std::size_t from, std::size_t to, std::vector<Index>& out) {
  constexpr std::size_t kPiece = std::size_t{1} << 18;
  constexpr std::size_t kFront = 8;  // text::scan reads up to 7 bytes before a number
  std::string buffer(kFront + kPiece, ' ');
  std::size_t carry = 0;  // bytes of the last piece not read yet, at the piece's start
  text::Output output{out, out.size()};
  text::Scan pass;
  for (std::size_t at = from;;) {
    if (buffer.size() - kFront - carry < kPiece / 2) buffer.resize(kFront + 2 * (buffer.size() - kFront));  // a long line
    char* const piece_start = buffer.data() + kFront;
    const std::size_t got = in.read_at(at, piece_start + carry, std::min(buffer.size() - kFront - carry, to - at));
    at += got;
    const bool last = at >= to || got == 0;
    const std::string_view piece(piece_start, carry + got);
    const std::size_t cut = last ? piece.size() : safe_cut(piece);
    pass = text::scan(piece, 0, cut, output);
    if (!pass.clean || last) break;
    carry = piece.size() - cut;
    std::memmove(piece_start, piece_start + cut, carry);
  }
  out.resize(output.used);
  return pass;
}

// --- the exact pass, for messages --------------------------------------------------------------
// Finds the first problem as a token-by-token reading reports it: a bad token or too many
// values while reading, then no values, then the first value out of 0..n. Throws it.
[[noreturn]] void throw_first_error(std::string_view text, const std::string& source) {
  std::int64_t rows = 0;
  for_each_token(text, [&](const Token& t, std::size_t offset) {
    if (t.kind == Token::bad)
      throw InputError(source + ":" + std::to_string(line_at(text, offset)) + ": row " + std::to_string(rows + 1) +
                       ": expected an integer 0..n, got " + text::quoted(t.text));
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

// Values expected in the input, from its first MiB, so that the vector is allocated once.
std::size_t estimated_values(const InputFile& in) {
  std::string sample(std::min(in.size(), std::size_t{1} << 20), '\0');
  sample.resize(in.read_at(0, sample.data(), sample.size()));
  std::size_t tokens = 0;
  for_each_token(sample, [&](const Token&, std::size_t) { return ++tokens, true; });
  if (tokens == 0 || sample.size() >= in.size()) return tokens;
  const double per_byte = static_cast<double>(tokens) / static_cast<double>(sample.size());
  return std::min({static_cast<std::size_t>(per_byte * 1.05 * static_cast<double>(in.size())) + 1024, in.size() / 2 + 1,
                   static_cast<std::size_t>(kMaxN)});
}

// Where the input is cut for reading in parallel: after a byte-order mark, then after a line
// feed (never inside a token or a comment) near every 1/T of it, T the hardware threads (at
// most 8), parts of at least 1 MiB; the last bound is the end.
std::vector<std::size_t> part_bounds(const InputFile& in) {
  constexpr std::size_t kMinPart = std::size_t{1} << 20;
  constexpr std::size_t kWindow = std::size_t{1} << 16;
  const std::size_t size = in.size();
  char head[3] = {};
  const std::size_t got = in.read_at(0, head, sizeof head);
  std::vector<std::size_t> bounds{first_byte(std::string_view(head, got))};
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::clamp<std::size_t>(size / kMinPart, 1, 8));
  std::string window(kWindow, '\0');
  for (std::size_t k = 1; k < threads; ++k) {
    std::size_t lf = std::string_view::npos;
    for (std::size_t at = std::max(bounds.back(), k * (size / threads)); lf == std::string_view::npos && at < size; at += kWindow) {
      const std::string_view part(window.data(), in.read_at(at, window.data(), kWindow));
      if (const std::size_t i = part.find('\n'); i != std::string_view::npos) lf = at + i;
      if (at - k * (size / threads) > kMinPart) break;  // no line feed near: fewer parts
    }
    if (lf == std::string_view::npos) break;
    bounds.push_back(lf + 1);
  }
  bounds.push_back(size);
  return bounds;
}

}  // namespace

LoadedComposition parse_composition(std::shared_ptr<const InputFile> in) {
  LoadedComposition out;
  out.source = in->name();
  out.format = CompositionFormat::text;
  const std::vector<std::size_t> bounds = part_bounds(*in);
  const std::size_t parts = bounds.size() - 1;
  // The first part is read straight into the composition (allocated once for the whole
  // input, in huge pages), the others into vectors of their own, appended after.
  std::vector<Index>& q = out.composition.q;
  const std::size_t estimate = estimated_values(*in);
  q.reserve(estimate);
  advise_huge_pages(q.data(), q.capacity() * sizeof(Index));
  std::vector<std::vector<Index>> rest(parts);
  std::vector<text::Scan> passes(parts);
  std::vector<std::exception_ptr> failures(parts);
  {
    std::vector<std::jthread> workers;
    for (std::size_t k = 1; k < parts; ++k) {
      workers.emplace_back([&, k] {
        try {
          const double share = static_cast<double>(bounds[k + 1] - bounds[k]) / static_cast<double>(in->size());
          rest[k].reserve(static_cast<std::size_t>(share * static_cast<double>(estimate)) + 1024);
          advise_huge_pages(rest[k].data(), rest[k].capacity() * sizeof(Index));
          passes[k] = read_part(*in, bounds[k], bounds[k + 1], rest[k]);
        } catch (...) {
          failures[k] = std::current_exception();
        }
      });
    }
    passes[0] = read_part(*in, bounds[0], bounds[1], q);
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
  if (!clean || q.empty() || max_value > q.size()) throw_first_error(in->bytes(), out.source);
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
