#include <gtest/gtest.h>

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "fifo_writer.hpp"
#include "system/errors.hpp"
#include "formats/input_file.hpp"
#include "formats/composition_file.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

std::string error_of(const std::string& text) {
  try {
    require_consistent(parse_composition(text, "f.txt"));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The parser's message, without the consistency check ("" when the text parses).
std::string parse_error_of(const std::string& text) {
  try {
    (void)parse_composition(text, "f.txt");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The lines of every row, through line_of_row.
std::vector<std::int64_t> lines_of(const LoadedComposition& l) {
  std::vector<std::int64_t> lines;
  for (Index r = 0; r < l.composition.n(); ++r) lines.push_back(line_of_row(l, r));
  return lines;
}

TEST(TextFormat, ParsesValuesCommentsAndLines) {
  const LoadedComposition l = parse_composition("# a comment\n0 0 5\n0 4 # trailing\n0 0 3 0 0\n", "f.txt");
  EXPECT_EQ(l.composition.q, (std::vector<Index>{0, 0, 5, 0, 4, 0, 0, 3, 0, 0}));
  EXPECT_EQ(lines_of(l), (std::vector<std::int64_t>{2, 2, 2, 3, 3, 4, 4, 4, 4, 4}));
  EXPECT_EQ(line_of_row(l, 10), 0);  // no such row
  EXPECT_EQ(l.format, CompositionFormat::text);
}

// Byte-order marks, CR, CRLF and LF line ends, tabs and a missing final newline
// are handled alike; a comment ends at any line end.
TEST(TextFormat, LineEndsTabsAndByteOrderMarkAlike) {
  for (const std::string end : {"\n", "\r\n", "\r"}) {
    const std::string text = "\xEF\xBB\xBF# c" + end + "0\t0 5" + end + end + "0 4 # x" + end + "0\t0 3 0 0";
    const LoadedComposition l = parse_composition(text, "f.txt");
    EXPECT_EQ(l.composition.q, (std::vector<Index>{0, 0, 5, 0, 4, 0, 0, 3, 0, 0})) << "line end " << end.size();
    EXPECT_EQ(lines_of(l), (std::vector<std::int64_t>{2, 2, 2, 4, 4, 5, 5, 5, 5, 5}));
    EXPECT_EQ(error_of("0" + end + "1" + end + "x" + end), "f.txt:3: row 3: expected an integer 0..n, got 'x'");
    EXPECT_EQ(error_of("# n = 5" + end + "2" + end + "0" + end + "0" + end + "2" + end + "0"),
              "f.txt:5: rows 1 and 4: two queens on one column (column 2)");
    EXPECT_EQ(error_of("0" + end + "0" + end + "9" + end + "0"), "f.txt:3: row 3: value 9 is out of range 0..4");
  }
}

TEST(TextFormat, BadInputMessagesNameFileLineAndRow) {
  EXPECT_EQ(error_of("0\n1\nx\n"), "f.txt:3: row 3: expected an integer 0..n, got 'x'");
  EXPECT_EQ(error_of("0 2.5 0"), "f.txt:1: row 2: expected an integer 0..n, got '2.5'");
  EXPECT_EQ(error_of(std::string("0 4\0x 0", 7)), "f.txt:1: row 2: expected an integer 0..n, got '4\\x00x'");
  EXPECT_EQ(error_of("0 \x1b[31m 0"), "f.txt:1: row 2: expected an integer 0..n, got '\\x1b[31m'");
  EXPECT_EQ(error_of("\xEF\xBB\xBF"
                     "0\n2\n0\n0\n"),
            "");  // a byte-order mark is skipped
  EXPECT_EQ(error_of("0\n0\n9\n0\n"), "f.txt:3: row 3: value 9 is out of range 0..4");
  EXPECT_EQ(error_of("0\n-1\n0\n0\n"), "f.txt:2: row 2: value -1 is out of range 0..4");
  EXPECT_EQ(error_of("0 -0 0"), "");  // -0 is 0
  EXPECT_EQ(error_of("0 99999999999999999999999 0"),
            "f.txt:1: row 2: value 99999999999999999999999 is out of range 0..3");
  EXPECT_EQ(error_of("0 " + std::string(60, '9') + " 0"),
            "f.txt:1: row 2: value " + std::string(37, '9') + "... is out of range 0..3");
  EXPECT_EQ(error_of("0 1234567890123456 0"), "f.txt:1: row 2: value 1234567890123456 is out of range 0..3");
  EXPECT_EQ(error_of("0 +1 0"), "f.txt:1: row 2: expected an integer 0..n, got '+1'");
  EXPECT_EQ(error_of("0 - 0"), "f.txt:1: row 2: expected an integer 0..n, got '-'");
  EXPECT_EQ(error_of("0 0x10 0"), "f.txt:1: row 2: expected an integer 0..n, got '0x10'");
  EXPECT_EQ(error_of("0 5\n7 x"),
            "f.txt:2: row 4: expected an integer 0..n, got 'x'");  // a bad token before a range error
  EXPECT_EQ(error_of(""), "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  EXPECT_EQ(error_of("# only a comment\n\n"),
            "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  EXPECT_EQ(error_of("# n = 5\n2\n0\n0\n2\n0\n"), "f.txt:5: rows 1 and 4: two queens on one column (column 2)");
  EXPECT_EQ(error_of("1\n0\n3\n0\n0\n"), "f.txt:3: rows 1 and 3: two queens on one diagonal (columns 1 and 3)");
  EXPECT_EQ(error_of("0\n0\n3\n0\n1\n"), "f.txt:5: rows 3 and 5: two queens on one anti-diagonal (columns 3 and 1)");
}

TEST(TextFormat, MissingFileAndDirectory) {
  try {
    (void)read_composition("/nonexistent/x.txt");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/x.txt: cannot open: No such file or directory");
  }
  try {
    (void)read_composition("/tmp");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/tmp: cannot open: is a directory");
  }
}

TEST(TextFormat, WriteThenReadIsExact) {
  const Composition c({0, 0, 5, 0, 4, 0, 0, 3, 0, 0});
  std::ostringstream out;
  write_composition(c, out);
  EXPECT_EQ(out.str().substr(0, out.str().find('\n')), "# nqc composition: n = 10, k = 3; Q(i) per row, 0 = empty row");
  const LoadedComposition back = parse_composition(out.str(), "mem");
  EXPECT_EQ(back.composition, c);
  EXPECT_EQ(line_of_row(back, 0), 2);  // row i on line i + 2
  EXPECT_EQ(line_of_row(back, 9), 11);
  const auto file =
      std::filesystem::temp_directory_path() / ("nqc-text-roundtrip-" + std::to_string(::getpid()) + ".txt");
  write_composition(c, file);
  EXPECT_EQ(read_composition(file).composition, c);
  std::filesystem::remove(file);
  EXPECT_THROW(write_composition(c, std::filesystem::path("/nonexistent/dir/x.txt")), InputError);  // no such directory
}

// --- the fast parser against a plain reading of the format ---------------------------------
// The earlier token-by-token parser (comments end at LF or CR here too): the values,
// or the message of the first error.
std::string reference_parse(const std::string& text, std::vector<Index>& values) {
  values.clear();
  std::vector<std::int64_t> raw;
  std::vector<std::size_t> line_of;
  std::map<std::size_t, std::string> overflow;
  std::size_t line = 1;
  std::size_t i = text.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n' || (c == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
      ++line;
      ++i;
    } else if (space(c)) {
      ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
    } else {
      std::size_t end = i;
      while (end < text.size() && !space(text[end]) && text[end] != '#') ++end;
      const std::string token = text.substr(i, end - i);
      std::int64_t v = 0;
      const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
      if (ec == std::errc::result_out_of_range && ptr == token.data() + token.size()) {
        overflow[raw.size()] = token.size() > 40 ? token.substr(0, 37) + "..." : token;
        v = -1;
      } else if (ec != std::errc() || ptr != token.data() + token.size()) {
        std::string shown;
        for (const char ch : token.substr(0, 40)) {
          char hex[8];
          std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(ch));
          shown += ch >= 0x20 && ch < 0x7f ? std::string(1, ch) : std::string(hex);
        }
        return "f.txt:" + std::to_string(line) + ": row " + std::to_string(raw.size() + 1) +
               ": expected an integer 0..n, got '" + shown + (token.size() > 40 ? "...'" : "'");
      }
      raw.push_back(v);
      line_of.push_back(line);
      i = end;
    }
  }
  if (raw.empty()) return "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)";
  const auto n = static_cast<std::int64_t>(raw.size());
  for (std::size_t r = 0; r < raw.size(); ++r) {
    if (raw[r] < 0 || raw[r] > n) {
      const std::string shown = overflow.count(r) ? overflow[r] : std::to_string(raw[r]);
      return "f.txt:" + std::to_string(line_of[r]) + ": row " + std::to_string(r + 1) + ": value " + shown +
             " is out of range 0.." + std::to_string(n);
    }
    values.push_back(static_cast<Index>(raw[r]));
  }
  return "";
}

// A random text of `count` tokens: mostly numbers 0..n of random widths with random
// separators (spaces, tabs, LF, CR, CRLF, runs of them), sometimes a comment, a leading-zero
// or 16-plus-digit number, and, when `bad` > 0, a bad or out-of-range token with that chance.
std::string random_text(std::mt19937_64& rng, std::size_t count, double bad) {
  const char* separators[] = {" ", "\n", "\t", "\r\n", "\r", "  ", " \n", "\n\n", "\t\t \r\n"};
  const char* bad_tokens[] = {"x", "-3", "1.5", "+2", "99999999999999999999", "12a", "\x01", "-", "0x1"};
  std::uniform_real_distribution<double> chance(0, 1);
  std::string text = chance(rng) < 0.2 ? "\xEF\xBB\xBF" : "";
  for (std::size_t i = 0; i < count; ++i) {
    const double u = chance(rng);
    if (u < bad) {
      text += bad_tokens[rng() % std::size(bad_tokens)];
    } else if (u < bad + 0.01) {
      text += "0000000000000000" + std::to_string(rng() % (count + 1));  // 17+ digits, a valid value
    } else if (u < bad + 0.02) {
      text += "# comment " + std::to_string(rng() % 1000) + (rng() % 2 ? "\n" : "\r");
      --i;
      continue;
    } else {
      const int digits = 1 + static_cast<int>(rng() % 10);
      std::uint64_t limit = 1;
      for (int d = 0; d < digits; ++d) limit *= 10;
      text += std::to_string(rng() % std::min<std::uint64_t>(limit, count + 1));
    }
    text += separators[rng() % std::size(separators)];
  }
  return text;
}

TEST(TextFormat, FastParserAgreesWithPlainReading) {
  std::mt19937_64 rng(20191212);
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t count = 1 + rng() % (trial < 300 ? 300 : 5000);
    const double bad = trial % 3 == 0 ? 0.0 : 0.002;
    const std::string text = random_text(rng, count, bad);
    std::vector<Index> expected;
    const std::string expected_error = reference_parse(text, expected);
    try {
      const LoadedComposition l = parse_composition(text, "f.txt");
      EXPECT_EQ(expected_error, "") << "trial " << trial;
      EXPECT_EQ(l.composition.q, expected) << "trial " << trial;
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected_error) << "trial " << trial;
    }
  }
}

// Numbers of every width at every offset of the parser's 64-byte blocks (and across them),
// followed by each kind of byte.
TEST(TextFormat, FastParserAtEveryBlockOffset) {
  const std::string tail = "\n" + std::string(100, ' ') + "0\n";
  for (int pad = 0; pad < 80; ++pad) {
    for (int digits = 1; digits <= 18; ++digits) {
      for (const std::string after : {" ", "\t", "#c\n", "x ", "\r\n", "-1 "}) {
        const std::string number = "1" + std::string(static_cast<std::size_t>(digits - 1), '0');
        const std::string text =
            std::string(static_cast<std::size_t>(pad), pad % 3 ? ' ' : '\n') + number + after + "0" + tail;
        std::vector<Index> expected;
        const std::string expected_error = reference_parse(text, expected);
        EXPECT_EQ(parse_error_of(text), expected_error) << pad << " " << digits << " '" << after << "'";
      }
    }
  }
}

// A text of several MiB: its values, and the first error of the file wherever it is.
TEST(TextFormat, LargeTexts) {
  std::mt19937_64 rng(7);
  const std::string text = random_text(rng, 1500000, 0.0);
  std::vector<Index> expected;
  ASSERT_EQ(reference_parse(text, expected), "");
  ASSERT_GT(text.size(), std::size_t{4} << 20);
  EXPECT_EQ(parse_composition(text, "f.txt").composition.q, expected);
  for (const double at : {0.1, 0.5, 0.55, 0.9, 0.999}) {
    std::string damaged = text;
    auto pos = static_cast<std::size_t>(at * static_cast<double>(text.size()));
    while (damaged[pos] < '0' || damaged[pos] > '9') ++pos;
    damaged[pos] = 'z';
    const std::string expected_error = reference_parse(damaged, expected);
    EXPECT_EQ(parse_error_of(damaged), expected_error) << "at " << at;
  }
  const std::string above = text + " " + std::to_string(expected.size() + 7) + "\n";
  EXPECT_EQ(parse_error_of(above), reference_parse(above, expected));
}

// The text is read in pieces of 256 KiB cut between lines, or on one long line between
// tokens and before a comment: one line of 10^6 values, CR line ends only, and a comment and
// a token each longer than a piece.
TEST(TextFormat, PiecesCutOnlyBetweenTokens) {
  std::string line;
  for (int i = 0; i < 1000000; ++i) line += std::to_string(i % 7) + (i % 5 ? " " : "\t");
  std::string cr;
  for (int i = 0; i < 600000; ++i) cr += std::to_string(i % 9) + (i % 1000 ? "\r" : "\r# c\r");
  const std::string long_comment = "1 2 0 # " + std::string(700000, 'c') + " 9 9 9\n4 3\n";
  const std::string long_token = "1 2 " + std::string(700000, '1') + " 3\n";
  const std::string long_line_comment = line + "# " + std::string(300000, 'x') + " 1 2 3\n" + line;
  for (const std::string* text :
       std::vector<const std::string*>{&line, &cr, &long_comment, &long_token, &long_line_comment}) {
    std::vector<Index> expected;
    const std::string expected_error = reference_parse(*text, expected);
    try {
      EXPECT_EQ(parse_composition(*text, "f.txt").composition.q, expected);
      EXPECT_EQ(expected_error, "");
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), expected_error);
    }
  }
}

// --- a text from a stream (a FIFO here), parsed as it arrives ----------------------------------

// What parse_composition of a stream gave: the message ("" when it parsed, with the source
// named "f.txt" as in reference_parse), the values, the bytes its writer got rid of and the
// pipe's capacity.
struct StreamRead {
  std::string error;
  std::vector<Index> values;
  std::uint64_t written = 0;
  std::uint64_t slack = 0;
};

// Parses a stream of `start`, then `pattern` repeated up to `total` bytes, under `limits`;
// with require_consistent when `consistent`.
StreamRead read_stream(const std::string& start, const std::string& pattern = "", std::uint64_t total = 0,
                       const StreamLimits& limits = {}, bool consistent = false) {
  static int made = 0;
  const auto fifo = std::filesystem::temp_directory_path() /
                    ("nqc-text-stream-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  testing::FifoWriter writer(fifo, start, pattern, total);
  StreamRead r;
  try {
    std::shared_ptr<const InputFile> in = InputFile::open(fifo);
    EXPECT_EQ(in->is_stream(), std::max<std::uint64_t>(start.size(), total) > InputFile::kStreamHead);
    const LoadedComposition l = parse_composition(std::move(in), limits);
    if (consistent) require_consistent(l);
    r.values = l.composition.q;
  } catch (const InputError& e) {
    r.error = e.what();
    if (r.error.starts_with(fifo.string())) r.error = "f.txt" + r.error.substr(fifo.string().size());
  }
  r.written = writer.finish();
  r.slack = writer.pipe_bytes();
  return r;
}

// A comment line that makes a text longer than a stream's first bytes (InputFile::kStreamHead).
const std::string kLongFirstLine = "# " + std::string(70000, 'c') + "\n";

// A stream is parsed as the file of its bytes: the same values, the same first error with its
// line (line ends split across pieces, CRLF among them, counted as it goes).
TEST(TextStream, ParsedAsItArrivesAsAFileIs) {
  std::mt19937_64 rng(16);
  for (int trial = 0; trial < 12; ++trial) {
    std::string text = kLongFirstLine + random_text(rng, 40000 + rng() % 200000, 0.0);
    if (trial % 3 == 1) {  // a bad token somewhere after the first piece
      auto pos = text.size() / 3 + rng() % (2 * text.size() / 3);
      while (text[pos] < '0' || text[pos] > '9') ++pos;
      text[pos] = trial % 2 ? 'z' : '\x01';
    } else if (trial % 3 == 2) {  // a value above n, or a negative one, near the end
      text += trial % 2 ? " 999999999\n5" : "\r\n-7 1\n";
    }
    std::vector<Index> expected;
    const std::string expected_error = reference_parse(text, expected);
    const StreamRead r = read_stream(text);
    EXPECT_EQ(r.error, expected_error) << "trial " << trial;
    if (expected_error.empty()) {
      EXPECT_EQ(r.values, expected) << "trial " << trial;
    }
  }
}

// A stream longer than the text kept for messages (StreamLimits::keep_bytes; 0 here): what is
// found while reading names the line still, what is found after (a value above n, a conflict)
// the rows only; a value no n admits keeps its line.
TEST(TextStream, LongerThanTheTextKeptNamesRowsOnly) {
  StreamLimits kept_none;
  kept_none.keep_bytes = 0;
  const auto error = [&](const std::string& text, bool consistent = false) {
    return read_stream(kLongFirstLine + text, "", 0, kept_none, consistent).error;
  };
  EXPECT_EQ(error("0\n1\nx\n"), "f.txt:4: row 3: expected an integer 0..n, got 'x'");
  EXPECT_EQ(error("0\n0\n9\n0\n"), "f.txt: row 3: value 9 is out of range 0..4");
  EXPECT_EQ(error("0\n-1\n9\n0\n"), "f.txt:3: row 2: value -1 is out of range 0..4");
  EXPECT_EQ(error("0\n9\n-1\n0\n"), "f.txt: row 2: value 9 is out of range 0..4");
  EXPECT_EQ(error("0 " + std::string(60, '9') + " 0"),
            "f.txt:2: row 2: value " + std::string(37, '9') + "... is out of range 0..3");
  EXPECT_EQ(error("0 3000000000 0"), "f.txt:2: row 2: value 3000000000 is out of range 0..3");
  EXPECT_EQ(error("2\n0\n0\n2\n", true), "f.txt: rows 1 and 4: two queens on one column (column 2)");
  EXPECT_EQ(error("# only a comment\n"),
            "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  // Kept (the default, 16 MiB): the lines of a file.
  EXPECT_EQ(read_stream(kLongFirstLine + "0\n0\n9\n0\n").error, "f.txt:4: row 3: value 9 is out of range 0..4");
  EXPECT_EQ(read_stream(kLongFirstLine + "2\n0\n0\n2\n", "", 0, {}, true).error,
            "f.txt:5: rows 1 and 4: two queens on one column (column 2)");
}

// Endless bad streams end with their first problem, read no further than the piece that holds
// it (/dev/zero, `yes`), the row after the largest n (`yes 1`), or the byte after the most a
// stream may have (blanks, a comment or a token that never ends).
TEST(TextStream, EndlessStreamsStopAtTheirFirstProblem) {
  constexpr std::uint64_t kEndless = std::uint64_t{64} << 20;  // far above any limit below
  constexpr std::uint64_t kPieces = std::uint64_t{1} << 20;    // a stream's first bytes and a piece, at most
  StreamRead r = read_stream("", std::string(1, '\0'), kEndless);
  EXPECT_EQ(r.error, "f.txt:1: row 1: expected an integer 0..n, got '" + text::escaped(std::string(40, '\0')) + "...'");
  EXPECT_LE(r.written, kPieces + r.slack);
  r = read_stream("", "y\n", kEndless);
  EXPECT_EQ(r.error, "f.txt:1: row 1: expected an integer 0..n, got 'y'");
  EXPECT_LE(r.written, kPieces + r.slack);
  r = read_stream("0\n0\n0\n", "y\n", kEndless);
  EXPECT_EQ(r.error, "f.txt:4: row 4: expected an integer 0..n, got 'y'");
  StreamLimits few_rows;
  few_rows.max_rows = 1000;
  r = read_stream("", "1\n", kEndless, few_rows);
  EXPECT_EQ(r.error, "f.txt: too many values (n must be at most 1000)");
  EXPECT_LE(r.written, kPieces + r.slack);
  StreamLimits few_bytes;
  few_bytes.max_bytes = std::uint64_t{1} << 20;
  const std::string at_least =
      "f.txt: at least 1048577 bytes, more than a text composition on a stream may have (1 MiB)";
  for (const auto& [start, pattern] : std::vector<std::pair<std::string, std::string>>{
           {"", " \n"}, {"1 2 #", "c"}, {"1 2 ", "0"}, {"1 2 -", "1"}, {"", "1 "}}) {
    r = read_stream(start, pattern, kEndless, few_bytes);
    EXPECT_EQ(r.error, at_least) << "'" << start << "' then '" << pattern << "'";
    EXPECT_LE(r.written, few_bytes.max_bytes + 1 + r.slack) << "'" << start << "' then '" << pattern << "'";
  }
  // Within the limit, the same texts end as files do.
  r = read_stream("1 2 #", "c", few_bytes.max_bytes);
  EXPECT_EQ(r.values, (std::vector<Index>{1, 2}));
}

// A token or a comment longer than a piece (256 KiB) is read on without being kept, as the
// token it is: a valid value with leading zeros, digits beyond 64 bits, a bad token.
TEST(TextStream, LongTokensAndCommentsReadOn) {
  const std::string pad = "\n" + std::string(70000, ' ') + "0\n";
  for (const std::string& text :
       {"1 2 " + std::string(700000, '1') + " 3\n" + pad, std::string(300000, '0') + "1 0" + pad,
        "-" + std::string(300000, '0') + "1 0" + pad, "-" + std::string(300000, '0') + " 0" + pad,
        "0 " + std::string(300000, '0') + "92233720368547758070 0" + pad, "0 " + std::string(300000, '7') + "x 0" + pad,
        "0 1\n2 " + std::string(300000, '\x01') + pad, "0 # " + std::string(700000, 'c') + "\r1 0\r\n" + pad}) {
    std::vector<Index> expected;
    const std::string expected_error = reference_parse(text, expected);
    StreamLimits kept_none;
    kept_none.keep_bytes = 0;
    for (const StreamLimits& limits : {StreamLimits{}, kept_none}) {
      const StreamRead r = read_stream(text, "", 0, limits);
      EXPECT_EQ(r.error, expected_error) << text.substr(0, 20);
      EXPECT_EQ(r.values, expected_error.empty() ? expected : std::vector<Index>{}) << text.substr(0, 20);
    }
  }
}

}  // namespace
}  // namespace nqc
