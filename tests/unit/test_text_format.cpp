#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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

TEST(TextFormat, ParsesValuesCommentsAndLines) {
  const LoadedComposition l = parse_composition("# a comment\n0 0 5\n0 4 # trailing\n0 0 3 0 0\n", "f.txt");
  EXPECT_EQ(l.composition.q, (std::vector<Index>{0, 0, 5, 0, 4, 0, 0, 3, 0, 0}));
  EXPECT_EQ(l.line_of_row, (std::vector<int>{2, 2, 2, 3, 3, 4, 4, 4, 4, 4}));
}

TEST(TextFormat, BadInputMessagesNameFileLineAndRow) {
  EXPECT_EQ(error_of("0\n1\nx\n"), "f.txt:3: row 3: expected an integer 0..n, got 'x'");
  EXPECT_EQ(error_of("0 2.5 0"), "f.txt:1: row 2: expected an integer 0..n, got '2.5'");
  EXPECT_EQ(error_of(std::string("0 4\0x 0", 7)), "f.txt:1: row 2: expected an integer 0..n, got '4\\x00x'");
  EXPECT_EQ(error_of("0 \x1b[31m 0"), "f.txt:1: row 2: expected an integer 0..n, got '\\x1b[31m'");
  EXPECT_EQ(error_of("\xEF\xBB\xBF" "0\n2\n0\n0\n"), "");  // a byte-order mark is skipped
  EXPECT_EQ(error_of("0\n0\n9\n0\n"), "f.txt:3: row 3: value 9 is out of range 0..4");
  EXPECT_EQ(error_of("0\n-1\n0\n0\n"), "f.txt:2: row 2: value -1 is out of range 0..4");
  EXPECT_EQ(error_of("0 99999999999999999999999 0"), "f.txt:1: row 2: value 99999999999999999999999 is out of range 0..3");
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
  EXPECT_EQ(back.line_of_row[0], 2);  // row i on line i + 2
  const auto file = std::filesystem::temp_directory_path() / "nqc-text-roundtrip.txt";
  write_composition(c, file);
  EXPECT_EQ(read_composition(file).composition, c);
  std::filesystem::remove(file);
  EXPECT_THROW(write_composition(c, std::filesystem::path("/nonexistent/dir/x.txt")), IoError);
}

}  // namespace
}  // namespace nqc
