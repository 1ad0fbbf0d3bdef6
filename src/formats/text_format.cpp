#include "formats/composition_file.hpp"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <optional>
#include <ostream>

#include "system/errors.hpp"
#include "formats/input_file.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

constexpr std::int64_t kMaxN = kMaxBoardSize;

// Whitespace: space, \t, \n, \v, \f, \r. A token runs to whitespace or '#'.
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }
bool ends_token(char c) { return c == '#' || is_space(c); }

// The 8 bytes at p, the first in the lowest byte.
std::uint64_t load8(const char* p) {
  std::uint64_t w = 0;
  std::memcpy(&w, p, sizeof w);
  if constexpr (std::endian::native == std::endian::big) w = __builtin_bswap64(w);
  return w;
}

// How many of the 8 bytes at p are digits before the first that is not (0..8), found without a
// branch per byte: the lowest byte flagged is exact (borrows and carries run upwards only).
int digit_run(const char* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  const std::uint64_t d = load8(p) - '0' * kOnes;
  const std::uint64_t non_digits = (d | (d + 0x76 * kOnes)) & (0x80 * kOnes);
  return non_digits != 0 ? std::countr_zero(non_digits) / 8 : 8;
}

// The number the `len` (1..8) digits at p write, in three multiplications (SWAR, as in
// [Langdale19]'s parse_eight_digits_unrolled): the digits moved to the top, zeros before them.
std::int64_t eight_digits(const char* p, int len) {
  std::uint64_t v = (load8(p) - 0x3030303030303030ULL) << (64 - 8 * len);
  v = v * 10 + (v >> 8);
  return static_cast<std::int64_t>((((v & 0x000000FF000000FFULL) * 0x000F424000000064ULL) +
                                    (((v >> 16) & 0x000000FF000000FFULL) * 0x0000271000000001ULL)) >>
                                   32);
}

std::string too_many_values(const std::string& source, std::uint64_t max_rows) {
  return source + ": too many values (n must be at most " + std::to_string(max_rows) + ")";
}
// LINE 0: not known (a stream too long to keep).
std::string out_of_range(const std::string& source, std::int64_t line, std::uint64_t row, const std::string& shown,
                         std::uint64_t n) {
  return source + (line > 0 ? ":" + std::to_string(line) : "") + ": row " + std::to_string(row) + ": value " + shown +
         " is out of range 0.." + std::to_string(n);
}

// A token cut by a piece's end, not kept whole (it may never end): its head for a message, its
// sign and digits after leading zeros (20 of them: beyond 64 bits).
struct PendingToken {
  std::string head;  // the first kQuotedBytes + 1 bytes
  std::string digits;
  std::size_t length = 0;
  bool negative = false;
  bool bad = false;

  // Takes the token's next bytes; once the head is full and a byte bad, what follows is moot.
  void add(std::string_view bytes) {
    for (const char c : bytes) {
      if (bad && head.size() > text::kQuotedBytes) return;
      if (head.size() <= text::kQuotedBytes) head.push_back(c);
      if (c == '-' && length == 0)
        negative = true;
      else if (c < '0' || c > '9')
        bad = true;
      else if ((c != '0' || !digits.empty()) && digits.size() < 20)
        digits.push_back(c);
      ++length;
    }
  }
  [[nodiscard]] bool decided() const { return bad && head.size() > text::kQuotedBytes; }
  // A short token that take() reads the same.
  [[nodiscard]] std::string text() const {
    if (length == head.size()) return head;
    if (bad) return head + "x";
    if (digits.size() < 20) return (negative ? "-" : "") + (digits.empty() ? std::string("0") : digits);
    return head.substr(0, text::kQuotedBytes - 3) + std::string(21, '9');
  }
};

// The reader of the text format, fed the text (after a byte-order mark) in pieces: appends the
// values to `q` (0 for one out of range), counting lines. Throws at the first bad token; stops
// (stopped()) at the token after max_rows values.
class TextReader {
 public:
  TextReader(std::string source, std::uint64_t max_rows, std::vector<Index>& q)
      : source_(std::move(source)), max_rows_(max_rows), q_(q) {}

  void feed(std::string_view piece) {
    const char* p = piece.data();
    const char* const end = p + piece.size();
    if (pending_ || in_comment_) p = go_on(p, end);
    std::int64_t line = line_, max_value = 0;  // kept in registers by the loop
    bool after_cr = after_cr_;
    while (p < end && !stopped_) {
      const char c = *p;
      if (c == '\n' || c == '\r') {
        line += c == '\r' || !after_cr ? 1 : 0;
        after_cr = c == '\r';
        ++p;
        continue;
      }
      after_cr = false;
      if (is_space(c)) {
        ++p;
      } else if (c == '#') {
        in_comment_ = true;
        p = go_on(p, end);
      } else if (const int len = end - p > 8 ? digit_run(p) : 0;
                 len > 0 && ends_token(p[len]) && q_.size() < max_rows_) {
        const std::int64_t v = eight_digits(p, len);  // the common case: 1..8 digits
        q_.push_back(static_cast<Index>(v));
        max_value = std::max(max_value, v);
        p += len;
        if (*p == '\n') ++line, ++p;  // and the line end after it, in the same step
      } else {
        line_ = line;
        const char* const token_end = std::find_if(p, end, ends_token);
        if (token_end == end) {  // it may go on in the next piece
          pending_.emplace();
          p = go_on(p, end);
        } else {
          take(std::string_view(p, static_cast<std::size_t>(token_end - p)));
          p = token_end;
        }
      }
    }
    line_ = line;
    after_cr_ = after_cr;
    max_value_ = std::max(max_value_, max_value);
  }

  /// The end of the text: takes a token that ran to it.
  void end() {
    if (!pending_ || stopped_) return;
    const std::string token = pending_->text();
    pending_.reset();
    take(token);
  }

  /// Moves a stream's values so far to `store`; gather() takes them back.
  void set_aside(SetAside& store) {
    before_ += q_.size();
    max_rows_ -= q_.size();
    store.add(q_);
  }
  void gather(SetAside& store) {
    q_ = store.take(q_);
    max_rows_ += before_;
    before_ = 0;
  }

  [[nodiscard]] bool stopped() const { return stopped_; }
  [[nodiscard]] std::int64_t line() const { return line_; }

  /// Throws what needs n: no values, or the first value out of 0..n (its line from `text`).
  void check(const InputFile* text) const {
    const std::uint64_t n = q_.size();
    if (n == 0)
      throw InputError(source_ + ": no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
    const auto before = q_.begin() + static_cast<std::ptrdiff_t>(unadmitted_ ? unadmitted_->row - 1 : n);
    const auto above =
        static_cast<std::uint64_t>(max_value_) <= n
            ? before
            : std::find_if(q_.begin(), before, [n](Index v) { return static_cast<std::uint64_t>(v) > n; });
    if (above != before) {
      const auto row = static_cast<Index>(above - q_.begin());
      const std::int64_t line = text != nullptr ? line_of_row(*text, source_, row) : 0;
      throw InputError(out_of_range(source_, line, static_cast<std::uint64_t>(row) + 1, std::to_string(*above), n));
    }
    if (unadmitted_)
      throw InputError(out_of_range(source_, unadmitted_->line, unadmitted_->row, unadmitted_->shown, n));
  }

  /// The line of row `row` (0-based) of a text that was read whole, 0 when it has fewer rows.
  static std::int64_t line_of_row(const InputFile& text, const std::string& source, Index row) {
    std::vector<Index> q;
    TextReader reader(source, static_cast<std::uint64_t>(row), q);
    const std::string_view bytes = text.bytes();
    reader.feed(bytes.substr(text::first_byte(bytes)));
    reader.end();
    return reader.stopped() ? reader.line() : 0;
  }

 private:
  // Goes on with a comment or a token cut by a piece's end: returns where the piece goes on.
  const char* go_on(const char* p, const char* end) {
    if (in_comment_) {
      const char* const stop = std::find_if(p, end, [](char c) { return c == '\n' || c == '\r'; });
      in_comment_ = stop == end;
      return stop;
    }
    const char* const stop = std::find_if(p, end, ends_token);
    pending_->add(std::string_view(p, static_cast<std::size_t>(stop - p)));
    if (stop < end || pending_->decided()) {
      const std::string token = pending_->text();
      pending_.reset();
      take(token);
    }
    return stop;
  }

  // One whole token: a value, or the message of a bad token.
  void take(std::string_view t) {
    std::int64_t v = 0;
    const auto [last, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (last != t.data() + t.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
      throw InputError(source_ + ":" + std::to_string(line_) + ": row " + std::to_string(before_ + q_.size() + 1) +
                       ": expected an integer 0..n, got " + text::quoted(t));
    if (q_.size() >= max_rows_) {
      stopped_ = true;
      return;
    }
    const bool fits = ec == std::errc() && v >= 0 && v <= kMaxN;
    if (!fits && !unadmitted_) {
      const std::string shown = ec == std::errc() ? std::to_string(v)
                                : t.size() > text::kQuotedBytes
                                    ? std::string(t.substr(0, text::kQuotedBytes - 3)) + "..."
                                    : std::string(t);
      unadmitted_ = Unadmitted{before_ + q_.size() + 1, line_, shown};
    }
    q_.push_back(fits ? static_cast<Index>(v) : 0);
    if (fits) max_value_ = std::max(max_value_, v);
  }

  // The first value no n admits (negative, above 2^31 - 1): a later bad token is reported first.
  struct Unadmitted {
    std::uint64_t row = 0;  // 1-based
    std::int64_t line = 0;
    std::string shown;
  };

  std::string source_;
  std::uint64_t max_rows_;  // in q_
  std::vector<Index>& q_;
  std::uint64_t before_ = 0;  // values set aside
  std::int64_t line_ = 1;     // of the next byte
  bool after_cr_ = false;
  bool in_comment_ = false;
  bool stopped_ = false;
  std::optional<PendingToken> pending_;
  std::int64_t max_value_ = 0;
  std::optional<Unadmitted> unadmitted_;
};

// A stream, parsed as it arrives, read no further than its first bad token, the token after
// max_rows values or the byte after max_bytes.
void read_stream(const InputFile& in, const StreamLimits& limits, TextReader& reader, LoadedComposition& out) {
  constexpr std::size_t kPiece = std::size_t{1} << 18;
  constexpr std::size_t kChunk = std::size_t{1} << 20;  // values set aside at a time
  std::string kept, buffer(kPiece, '\0');
  SetAside store;
  bool keeping = true;
  std::uint64_t bytes = 0;
  std::string_view piece = in.bytes();  // the first bytes, read by InputFile::open
  std::size_t skip = text::first_byte(piece);
  while (!piece.empty()) {
    bytes += piece.size();
    text::require_at_most(in.name(), bytes, limits.max_bytes, "text composition on a stream", true);
    keeping = keeping && kept.size() + piece.size() <= limits.keep_bytes;
    if (keeping) kept.append(piece);
    if (!keeping) std::string().swap(kept);
    reader.feed(piece.substr(skip));
    skip = 0;
    if (reader.stopped()) throw InputError(too_many_values(in.name(), limits.max_rows));
    if (out.composition.q.size() >= kChunk) reader.set_aside(store);
    const auto most = static_cast<std::size_t>(std::min<std::uint64_t>(kPiece, limits.max_bytes + 1 - bytes));
    piece = std::string_view(buffer.data(), in.read_stream(buffer.data(), most));
  }
  reader.end();
  if (reader.stopped()) throw InputError(too_many_values(in.name(), limits.max_rows));
  reader.gather(store);
  if (keeping) out.text = InputFile::from_memory(std::move(kept), in.name());
  reader.check(out.text.get());
}

// A text read whole, 8 MiB at a time, each slice given back once read (not resident beside
// its values).
void read_whole(const InputFile& in, std::vector<Index>& q) {
  const std::string_view bytes = in.bytes();
  const std::size_t start = text::first_byte(bytes);
  q.reserve(std::min((bytes.size() - start) / 2 + 1, static_cast<std::size_t>(kMaxN)));  // 2 bytes a value at least
  advise_huge_pages(q.data(), q.capacity() * sizeof(Index));
  TextReader reader(in.name(), static_cast<std::uint64_t>(kMaxN), q);
  constexpr std::size_t kSlice = std::size_t{8} << 20;
  for (std::size_t at = start; at < bytes.size(); at += kSlice) {
    const std::size_t end = std::min(bytes.size(), at + kSlice);
    reader.feed(bytes.substr(at, end - at));
    in.release(at, end);
  }
  reader.end();
  if (reader.stopped()) throw InputError(too_many_values(in.name(), kMaxN));
  reader.check(&in);
}

}  // namespace

LoadedComposition parse_composition(std::shared_ptr<const InputFile> in, const StreamLimits& limits) {
  LoadedComposition out;
  out.source = in->name();
  out.format = CompositionFormat::text;
  if (in->is_stream()) {
    TextReader reader(in->name(), limits.max_rows, out.composition.q);
    read_stream(*in, limits, reader, out);
    return out;
  }
  read_whole(*in, out.composition.q);  // the text kept for messages, not resident
  out.text = std::move(in);
  return out;
}

LoadedComposition parse_composition(std::string text, const std::string& source) {
  return parse_composition(InputFile::from_memory(std::move(text), source));
}

std::int64_t line_of_row(const LoadedComposition& loaded, Index row) {
  return loaded.text ? TextReader::line_of_row(*loaded.text, loaded.source, row) : 0;
}

void write_composition(const Composition& c, std::ostream& out) {
  out << "# nqc composition: n = " << c.n() << ", k = " << c.k() << "; Q(i) per row, 0 = empty row\n";
  constexpr std::size_t kBuffer = std::size_t{1} << 20;
  std::string buffer;
  buffer.reserve(kBuffer);
  char digits[16];
  for (const Index v : c.q) {
    buffer.append(digits, std::to_chars(digits, digits + sizeof digits, v).ptr);
    buffer.push_back('\n');
    if (buffer.size() > kBuffer - 16) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

}  // namespace nqc
