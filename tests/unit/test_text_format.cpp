#include <gtest/gtest.h>

#include <charconv>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "io/errors.hpp"
#include "io/text_format.hpp"

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

// Issue 13: byte-order marks, CR, CRLF and LF line ends, tabs and a missing final newline
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
  EXPECT_EQ(error_of("\xEF\xBB\xBF" "0\n2\n0\n0\n"), "");  // a byte-order mark is skipped
  EXPECT_EQ(error_of("0\n0\n9\n0\n"), "f.txt:3: row 3: value 9 is out of range 0..4");
  EXPECT_EQ(error_of("0\n-1\n0\n0\n"), "f.txt:2: row 2: value -1 is out of range 0..4");
  EXPECT_EQ(error_of("0 -0 0"), "");  // -0 is 0
  EXPECT_EQ(error_of("0 99999999999999999999999 0"), "f.txt:1: row 2: value 99999999999999999999999 is out of range 0..3");
  EXPECT_EQ(error_of("0 " + std::string(60, '9') + " 0"),
            "f.txt:1: row 2: value " + std::string(37, '9') + "... is out of range 0..3");
  EXPECT_EQ(error_of("0 1234567890123456 0"), "f.txt:1: row 2: value 1234567890123456 is out of range 0..3");
  EXPECT_EQ(error_of("0 +1 0"), "f.txt:1: row 2: expected an integer 0..n, got '+1'");
  EXPECT_EQ(error_of("0 - 0"), "f.txt:1: row 2: expected an integer 0..n, got '-'");
  EXPECT_EQ(error_of("0 0x10 0"), "f.txt:1: row 2: expected an integer 0..n, got '0x10'");
  EXPECT_EQ(error_of("0 5\n7 x"), "f.txt:2: row 4: expected an integer 0..n, got 'x'");  // a bad token before a range error
  EXPECT_EQ(error_of(""), "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
  EXPECT_EQ(error_of("# only a comment\n\n"), "f.txt: no values (expected whitespace-separated integers Q(1..n), 0 for an empty row)");
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
  const auto file = std::filesystem::temp_directory_path() / ("nqc-text-roundtrip-" + std::to_string(::getpid()) + ".txt");
  write_composition(c, file);
  EXPECT_EQ(read_composition(file).composition, c);
  std::filesystem::remove(file);
  EXPECT_THROW(write_composition(c, std::filesystem::path("/nonexistent/dir/x.txt")), InputError);  // no such directory
}

// --- the fast parser against a plain reading of the format ---------------------------------
// The parser before issue 11, token by token (comments end at LF or CR here too): the values,
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
        return "f.txt:" + std::to_string(line) + ": row " + std::to_string(raw.size() + 1) + ": expected an integer 0..n, got '" + shown +
               (token.size() > 40 ? "...'" : "'");
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
      return "f.txt:" + std::to_string(line_of[r]) + ": row " + std::to_string(r + 1) + ": value " + shown + " is out of range 0.." + std::to_string(n);
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
        const std::string text = std::string(static_cast<std::size_t>(pad), pad % 3 ? ' ' : '\n') + number + after + "0" + tail;
        std::vector<Index> expected;
        const std::string expected_error = reference_parse(text, expected);
        EXPECT_EQ(parse_error_of(text), expected_error) << pad << " " << digits << " '" << after << "'";
      }
    }
  }
}

// Texts of several MiB are parsed in parts by parallel threads: values across the cuts, and
// the first error of the file wherever it is.
TEST(TextFormat, LargeTextsInParallelParts) {
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
  for (const std::string* text : std::vector<const std::string*>{&line, &cr, &long_comment, &long_token, &long_line_comment}) {
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

}  // namespace
}  // namespace nqc
