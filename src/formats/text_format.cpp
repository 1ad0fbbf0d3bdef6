#include "formats/text_format.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <functional>
#include <optional>
#include <cstdio>
#include <cstring>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "system/errors.hpp"
#include "formats/input_file.hpp"
#include "formats/stream_values.hpp"
#include "formats/text_scan.hpp"

namespace nqc {
namespace {

using text::first_byte;
using text::is_space;
using text::read_token;
using text::skip_comment;
using text::Token;

constexpr std::int64_t kMaxN = kMaxBoardSize;

// The messages, the same for a file and a stream. LINE 0: not known (a stream not kept).
std::string bad_token(const std::string& source, std::int64_t line, std::uint64_t row, const Token& t) {
  return source + ":" + std::to_string(line) + ": row " + std::to_string(row) + ": expected an integer 0..n, got " +
         text::quoted(t.text);
}
std::string too_many_values(const std::string& source, std::uint64_t max_rows) {
  return source + ": too many values (n must be at most " + std::to_string(max_rows) + ")";
}
std::string no_values(const std::string& source) {
  return source + ": no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)";
}
std::string out_of_range(const std::string& source, std::int64_t line, std::uint64_t row, const std::string& shown,
                         std::uint64_t n) {
  return source + (line > 0 ? ":" + std::to_string(line) : "") + ": row " + std::to_string(row) + ": value " + shown +
         " is out of range 0.." + std::to_string(n);
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

// A token too long for a piece, read on as it arrives and written back as a short token that
// reads the same: the same kind (Token), value and message (the first kQuotedBytes bytes, of
// which a message shows at most 37 of digits beyond 64 bits). Reading stops at its first bad
// byte: it is bad whatever follows.
class LongToken {
 public:
  // Takes the token's next bytes (no byte that ends a token among them).
  void add(std::string_view bytes) {
    if (head_.size() < text::kQuotedBytes) head_.append(bytes.substr(0, text::kQuotedBytes - head_.size()));
    for (const char c : bytes) {
      if (bad_) return;
      if (c == '-' && length_ == 0)
        negative_ = true;
      else if (!text::is_digit(c))
        bad_ = true;
      else if ((c != '0' || !digits_.empty()) && digits_.size() < 21)
        digits_.push_back(c);
      ++length_;
    }
  }
  [[nodiscard]] bool bad() const { return bad_; }
  // The short token: the first bytes and one bad byte; or those a message shows of digits
  // beyond 64 bits and more digits; or the value without leading zeros.
  [[nodiscard]] std::string text() const {
    if (bad_) return head_ + "x";
    const std::string value = (negative_ ? "-" : "") + (digits_.empty() ? std::string("0") : digits_);
    std::int64_t v = 0;
    if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc()) return value;
    return head_.substr(0, text::kQuotedBytes - 3) + std::string(21, '9');  // beyond 64 bits
  }

 private:
  std::string head_;    // the first kQuotedBytes bytes
  std::string digits_;  // the digits after leading zeros (21 of them mean: beyond 64 bits)
  std::size_t length_ = 0;
  bool negative_ = false;
  bool bad_ = false;
};

// A text read in order by `read` (up to `count` bytes into `out`, 0 at the end), in pieces of
// at most kPiece bytes, each cut where no token or comment is split (safe_cut), with kFront
// readable bytes before it (text::scan reads up to 7 bytes before a number). Memory is this
// one buffer: a comment longer than a piece is kept as "#", a token as a LongToken; reading
// ends at a long bad token (what follows it is never read).
class Pieces {
 public:
  using Read = std::function<std::size_t(char* out, std::size_t count)>;
  static constexpr std::size_t kPiece = std::size_t{1} << 18;
  static constexpr std::size_t kFront = 8;

  explicit Pieces(Read read) : read_(std::move(read)), buffer_(kFront + kPiece + 2 * text::kQuotedBytes, ' ') {}

  // The next piece, empty after the last one. Valid until the next call.
  std::string_view next() {
    char* const start = buffer_.data() + kFront;
    std::memmove(start, start + cut_, carry_);
    cut_ = 0;
    while (!ended_) {
      const std::size_t room = kPiece > carry_ ? kPiece - carry_ : 0;
      const std::size_t got = room > 0 ? read_(start + carry_, room) : 0;
      if (room > 0 && got == 0) break;
      const std::string_view piece(start, carry_ + got);
      const std::size_t cut = safe_cut(piece);
      if (cut > 0) {
        cut_ = cut;
        carry_ = piece.size() - cut;
        return piece.substr(0, cut);
      }
      carry_ = piece.size();
      if (carry_ >= kPiece) shorten(start);  // one comment or one token fills the piece
    }
    ended_ = true;
    cut_ = carry_;
    carry_ = 0;
    return {start, cut_};
  }

 private:
  // Shortens the comment or token that fills the piece at `start` (read on to its end).
  void shorten(char* start) {
    if (*start == '#') {
      carry_ = 1;
      return;
    }
    LongToken token;
    token.add(std::string_view(start, carry_));
    std::size_t got = 0, end = 0;
    while (!token.bad()) {
      got = read_(start, kPiece);
      end = 0;
      while (end < got && !text::ends_token(start[end])) ++end;
      token.add(std::string_view(start, end));
      if (end < got || got == 0) break;
    }
    const std::string shortened = token.text();
    if (token.bad()) {
      ended_ = true;
      got = end = 0;
    }
    std::memmove(start + shortened.size(), start + end, got - end);
    std::memcpy(start, shortened.data(), shortened.size());
    carry_ = shortened.size() + got - end;
  }

  Read read_;
  std::string buffer_;
  std::size_t carry_ = 0;  // bytes of the buffer not given out yet, from the piece's start + cut_
  std::size_t cut_ = 0;    // the length of the piece given out last
  bool ended_ = false;
};

// Reads the values of bytes from .. to - 1 of `in` (a line start or the start of the values,
// and a line start or the end) into `out`: copied a piece at a time into a buffer that stays
// in the processor's cache.
text::Scan read_part(const InputFile& in, std::size_t from, std::size_t to, std::vector<Index>& out) {
  std::size_t at = from;
  Pieces pieces([&](char* buffer, std::size_t count) {
    const std::size_t got = in.read_at(at, buffer, std::min(count, to - at));
    at += got;
    return got;
  });
  text::Output output{out, out.size()};
  text::Scan pass;
  for (std::string_view piece = pieces.next(); !piece.empty(); piece = pieces.next())
    if (pass = text::scan(piece, 0, piece.size(), output); !pass.clean) break;
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
      throw InputError(bad_token(source, line_at(text, offset), static_cast<std::uint64_t>(rows) + 1, t));
    if (rows == kMaxN) throw InputError(too_many_values(source, kMaxN));
    ++rows;
    return true;
  });
  if (rows == 0) throw InputError(no_values(source));
  const std::int64_t n = rows;
  rows = 0;
  for_each_token(text, [&](const Token& t, std::size_t offset) {
    ++rows;
    if (t.kind == Token::integer && t.value >= 0 && t.value <= n) return true;
    throw InputError(out_of_range(source, line_at(text, offset), static_cast<std::uint64_t>(rows), text::shown_value(t),
                                  static_cast<std::uint64_t>(n)));
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
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::clamp<std::size_t>(size / kMinPart, 1, 8));
  std::string window(kWindow, '\0');
  for (std::size_t k = 1; k < threads; ++k) {
    std::size_t lf = std::string_view::npos;
    for (std::size_t at = std::max(bounds.back(), k * (size / threads)); lf == std::string_view::npos && at < size;
         at += kWindow) {
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

// --- a stream, read once, in order ----------------------------------------------------------------

// The line ends in `piece` (LF, CRLF and CR one each); `after_cr`: the byte before it was a CR
// (a LF first then ends no line), set to whether its last byte is one.
std::int64_t line_ends(std::string_view piece, bool& after_cr) {
  if (piece.find('\r') == std::string_view::npos) {
    const std::int64_t ends =
        std::count(piece.begin(), piece.end(), '\n') - (after_cr && piece.starts_with('\n') ? 1 : 0);
    if (!piece.empty()) after_cr = false;
    return ends;
  }
  std::int64_t ends = 0;
  for (const char c : piece) {
    ends += c == '\r' || (c == '\n' && !after_cr) ? 1 : 0;
    after_cr = c == '\r';
  }
  return ends;
}

// A text from a stream (InputFile::is_stream), parsed as it arrives: the values into chunks,
// the lines counted for messages, the text kept only up to limits.keep_bytes (for the lines
// of messages after it is read). Reads no further than its first bad token, the row after
// limits.max_rows, the byte after limits.max_bytes.
class StreamText {
 public:
  StreamText(std::shared_ptr<const InputFile> in, const StreamLimits& limits) : in_(std::move(in)), limits_(limits) {
    head_at_ = first_byte(in_->bytes());
    bytes_ = head_at_;
    kept_.assign(in_->bytes().substr(0, head_at_));
  }

  LoadedComposition read() {
    Pieces pieces([this](char* out, std::size_t count) { return read_some(out, count); });
    for (std::string_view piece = pieces.next(); !piece.empty(); piece = pieces.next()) {
      const std::size_t most = piece.size() / 2 + 1 + 64;  // values in the piece at most, and a block's room
      if (values_.size() + most <= limits_.max_rows) {
        text::Output output{values_.room(most), values_.used()};
        const text::Scan pass = text::scan(piece, 0, piece.size(), output);
        if (pass.clean && pass.max_value <= static_cast<std::uint64_t>(kMaxN)) {
          values_.used() = output.used;
          max_value_ = std::max(max_value_, pass.max_value);
          line_ += line_ends(piece, after_cr_);
          continue;
        }
      }
      token_by_token(piece);  // a problem in the piece, or the limit of rows near
    }
    return finish();
  }

 private:
  // The first value that no n admits (negative, or above 2^31 - 1), found while reading; the
  // message waits for n (and for a bad token, which a reading reports first).
  struct OutOfRange {
    std::uint64_t row = 0;  // 1-based
    std::int64_t line = 0;
    std::string shown;
  };

  // Up to `count` next bytes of the stream (after a byte-order mark): its first bytes, then
  // read(2); each kept while the text is small.
  std::size_t read_some(char* out, std::size_t count) {
    const std::string_view head = in_->bytes();
    std::size_t got = 0;
    if (head_at_ < head.size()) {
      got = std::min(count, head.size() - head_at_);
      std::memcpy(out, head.data() + head_at_, got);
      head_at_ += got;
    } else {
      got = in_->read_stream(out,
                             static_cast<std::size_t>(std::min<std::uint64_t>(count, limits_.max_bytes + 1 - bytes_)));
    }
    bytes_ += got;
    if (bytes_ > limits_.max_bytes)
      text::require_at_most(in_->name(), limits_.max_bytes + 1, limits_.max_bytes, "text composition on a stream",
                            true);
    if (keeping_ && kept_.size() + got > limits_.keep_bytes) {
      keeping_ = false;
      std::string().swap(kept_);
    }
    if (keeping_) kept_.append(out, got);
    return got;
  }

  // The piece read token by token, as the exact pass reads a file.
  void token_by_token(std::string_view piece) {
    const std::string& name = in_->name();
    for (std::size_t i = 0; i < piece.size();) {
      const char c = piece[i];
      if (c == '\n' || c == '\r') {
        line_ += c == '\r' || !after_cr_ ? 1 : 0;
        after_cr_ = c == '\r';
        ++i;
        continue;
      }
      after_cr_ = false;
      if (is_space(c)) {
        ++i;
      } else if (c == '#') {
        i = skip_comment(piece, i);
      } else {
        const Token t = read_token(piece, i);
        const std::uint64_t row = values_.size() + 1;
        if (t.kind == Token::bad) throw InputError(bad_token(name, line_, row, t));
        if (values_.size() == limits_.max_rows) throw InputError(too_many_values(name, limits_.max_rows));
        const bool fits = t.kind == Token::integer && t.value >= 0 && t.value <= kMaxN;
        if (!fits && !first_out_of_range_) first_out_of_range_ = OutOfRange{row, line_, text::shown_value(t)};
        values_.push(fits ? static_cast<Index>(t.value) : 0);
        if (fits) max_value_ = std::max(max_value_, static_cast<std::uint64_t>(t.value));
        i += t.text.size();
      }
    }
  }

  // The composition, or the message of a file with the same bytes: with its line when the
  // text was kept, else the line of a value that no n admits, none for one just above n.
  LoadedComposition finish() {
    const std::string& name = in_->name();
    const std::uint64_t n = values_.size();
    if (n == 0) throw InputError(no_values(name));
    const bool out_of_range_0_n = first_out_of_range_ || max_value_ > n;
    if (keeping_ && out_of_range_0_n) throw_first_error(kept_, name);
    LoadedComposition out;
    out.source = name;
    out.format = CompositionFormat::text;
    out.composition.q = values_.take();
    if (out_of_range_0_n) {
      const std::vector<Index>& q = out.composition.q;
      const auto before =
          q.begin() + static_cast<std::ptrdiff_t>(first_out_of_range_ ? first_out_of_range_->row - 1 : n);
      const auto above = std::find_if(q.begin(), before, [n](Index v) { return static_cast<std::uint64_t>(v) > n; });
      if (above != before)
        throw InputError(
            out_of_range(name, 0, static_cast<std::uint64_t>(above - q.begin()) + 1, std::to_string(*above), n));
      throw InputError(
          out_of_range(name, first_out_of_range_->line, first_out_of_range_->row, first_out_of_range_->shown, n));
    }
    if (keeping_) out.text = InputFile::from_memory(std::move(kept_), name);
    return out;
  }

  std::shared_ptr<const InputFile> in_;
  StreamLimits limits_;
  std::size_t head_at_ = 0;  // bytes of in_->bytes() read
  std::uint64_t bytes_ = 0;  // bytes of the stream read
  std::string kept_;         // those bytes, while keeping_
  bool keeping_ = true;
  StreamValues values_;
  std::uint64_t max_value_ = 0;
  std::int64_t line_ = 1;  // the line of the next byte
  bool after_cr_ = false;
  std::optional<OutOfRange> first_out_of_range_;
};

}  // namespace

LoadedComposition parse_composition(std::shared_ptr<const InputFile> in, const StreamLimits& limits) {
  if (in->is_stream()) return StreamText(std::move(in), limits).read();
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
