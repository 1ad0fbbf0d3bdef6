// The one text discipline (formats/text_input.hpp) and every reader that uses it: compositions,
// CSPLib .param files and JSON configs read a byte-order mark, LF, CRLF and CR line ends,
// tabs and a missing final newline alike, and quote bytes that are not printable as escapes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "experiment/config.hpp"
#include "fifo_writer.hpp"
#include "formats/composition_file.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"
#include "formats/input_file.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> line_texts(std::string_view text) {
  std::vector<std::string> out;
  for (const text::Line& l : text::lines(text)) out.push_back(std::to_string(l.number) + ":" + std::string(l.text));
  return out;
}

TEST(TextInput, LinesEndAtLfCrlfAndCr) {
  const std::vector<std::string> expected{"1:a", "2:b", "3:", "4:c"};
  EXPECT_EQ(line_texts("a\nb\n\nc\n"), expected);
  EXPECT_EQ(line_texts("a\r\nb\r\n\r\nc\r\n"), expected);
  EXPECT_EQ(line_texts("a\rb\r\rc\r"), expected);
  EXPECT_EQ(line_texts("a\nb\r\n\rc"), expected);  // mixed, no final line end
  EXPECT_EQ(line_texts("\xEF\xBB\xBF"
                       "a\nb\n\nc"),
            expected);
  EXPECT_TRUE(line_texts("").empty());
  EXPECT_TRUE(line_texts("\xEF\xBB\xBF").empty());
  EXPECT_EQ(line_texts("\n"), std::vector<std::string>{"1:"});
}

TEST(TextInput, NormalizedDropsTheBomAndMakesEveryLineEndLf) {
  EXPECT_EQ(text::normalized("\xEF\xBB\xBF{\r\n\"a\":\r1\n}"), "{\n\"a\":\n1\n}");
  EXPECT_EQ(text::normalized("\r\r\n\n"), "\n\n\n");
}

TEST(TextInput, MessagesEscapeBytesThatAreNotPrintable) {
  EXPECT_EQ(text::quoted("\xEF\xBB\xBFn =\t4"), "'\\xef\\xbb\\xbfn =\\x094'");
  EXPECT_EQ(text::quoted(std::string("a\0b\x1b[31m", 8)), "'a\\x00b\\x1b[31m'");
  EXPECT_EQ(text::quoted(std::string(50, 'x'), 40), "'" + std::string(40, 'x') + "...'");
  EXPECT_EQ(text::escaped("\x7f\x80"), "\\x7f\\x80");
  EXPECT_EQ(text::trim(" \t\v\fx y \t"), "x y");
}

// The same content in every spelling the discipline accepts.
std::vector<std::string> spellings(const std::string& lf_text) {
  std::vector<std::string> out;
  for (const std::string end : {"\n", "\r\n", "\r"}) {
    std::string t;
    for (const char c : lf_text) t += c == '\n' ? end : std::string(1, c);
    out.push_back(t);
    out.push_back("\xEF\xBB\xBF" + t);
    if (!t.empty() && t.ends_with(end)) out.push_back(t.substr(0, t.size() - end.size()));  // no final line end
  }
  return out;
}

TEST(TextInput, ParamFilesReadAlikeInEverySpelling) {
  for (const std::string& t : spellings("n = 4\nnumdiags\t=\t1\n\ndiags = [[3, 1]]\n")) {
    SCOPED_TRACE(text::escaped(t));
    const ParamInstance p = parse_param(t, "x.param", std::nullopt);
    EXPECT_EQ(p.board.n(), 4);
    EXPECT_EQ(p.numdiags, 1);
    EXPECT_EQ(p.board.excluded_sum, std::vector<Index>{3});
  }
  // Errors name the line as an editor counts it, whatever the line ends.
  for (const std::string& t : spellings("n = 4\nnumdiags = 0\ndiags = []\n\xEF\xBB\xBFoops\n")) {
    SCOPED_TRACE(text::escaped(t));
    try {
      (void)parse_param(t, "x.param", std::nullopt);
      FAIL();
    } catch (const InputError& e) {
      EXPECT_STREQ(e.what(), "x.param:4: expected 'n = ', 'numdiags = ' or 'diags = ', got '\\xef\\xbb\\xbfoops'");
    }
  }
}

TEST(TextInput, CompositionsReadAlikeInEverySpelling) {
  for (const std::string& t : spellings("# c\n2\n4\t1\n0\n")) {
    SCOPED_TRACE(text::escaped(t));
    EXPECT_EQ(parse_composition(t, "c.txt").composition.q, (std::vector<Index>{2, 4, 1, 0}));
  }
}

class TextFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nqc-text-input-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }
  fs::path dir_;
};

TEST_F(TextFiles, ConfigsReadAlikeInEverySpelling) {
  const std::string config =
      "{\n\t\"name\": \"t\",\n  \"sizes\": [{\"n\": 8, \"solutions\": 1, \"compositions_per_solution\": 2}]\n}\n";
  const ExperimentConfig reference = load_config(write("ref.json", config));
  int i = 0;
  for (const std::string& t : spellings(config)) {
    SCOPED_TRACE(text::escaped(t));
    EXPECT_EQ(load_config(write("c" + std::to_string(i++) + ".json", t)).resolved, reference.resolved);
  }
  // A JSON error names the line an editor shows, for CR-only line ends too.
  i = 0;
  for (const std::string& t : spellings("{\n\"name\": \"t\",\n\"seed\": x\n}\n")) {
    SCOPED_TRACE(text::escaped(t));
    const fs::path f = write("e" + std::to_string(i++) + ".json", t);
    try {
      (void)load_config(f);
      FAIL();
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("at line 3, column 9"), std::string::npos) << e.what();
    }
  }
}

TEST_F(TextFiles, ParamFilesWithABomOrCrLineEndsRead) {
  EXPECT_EQ(read_param(write("bom.param", "\xEF\xBB\xBFn = 4\nnumdiags = 0\ndiags = []\n"), std::nullopt).board.n(), 4);
  EXPECT_EQ(read_param(write("cr.param", "n = 4\rnumdiags = 0\rdiags = []\r"), std::nullopt).board.n(), 4);
  try {
    (void)read_param(dir_, std::nullopt);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), dir_.string() + ": cannot open: is a directory");
  }
}

// A .param text on standard input is held to a named file's limit: read whole, or (a stream)
// stopped as soon as it has more bytes than that.
TEST_F(TextFiles, ParamOnStdinHeldToTheLimitOfANamedFile) {
  const std::string param = "n = 4\nnumdiags = 0\ndiags = []";  // then blanks up to the limit
  std::string at_limit = param + std::string(kMaxParamBytes - param.size(), ' ');
  EXPECT_EQ(read_param(*InputFile::from_memory(at_limit, "<stdin>"), std::nullopt).board.n(), 4);
  try {
    (void)read_param(*InputFile::from_memory(at_limit + ' ', "<stdin>"), std::nullopt);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "<stdin>: 16777217 bytes, more than a .param file may have (16 MiB)");
  }
  const fs::path fifo = dir_ / "param.fifo";
  {
    testing::FifoWriter writer(fifo, at_limit);
    EXPECT_EQ(read_param(*InputFile::open(fifo), std::nullopt).board.n(), 4);
  }
  testing::FifoWriter writer(fifo, param, " ", 4 * kMaxParamBytes);
  try {
    (void)read_param(*InputFile::open(fifo), std::nullopt);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()),
              fifo.string() + ": at least 16777217 bytes, more than a .param file may have (16 MiB)");
  }
  EXPECT_LE(writer.finish(), kMaxParamBytes + 1 + writer.pipe_bytes());
}

// A stream's first bytes are read at open (all of a short one: then it is bytes in memory),
// the rest by read_stream, or into memory up to a limit by spool.
TEST_F(TextFiles, StreamsAreReadInOrderNoFurtherThanAsked) {
  const fs::path fifo = dir_ / "in.fifo";
  std::string bytes(3 * InputFile::kStreamHead + 5, 'a');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 26);
  {
    testing::FifoWriter writer(fifo, bytes.substr(0, 100));
    const auto in = InputFile::open(fifo);
    EXPECT_FALSE(in->is_stream());
    EXPECT_EQ(in->bytes(), bytes.substr(0, 100));
    EXPECT_TRUE(in->path().empty());
  }
  {
    testing::FifoWriter writer(fifo, bytes);
    const auto in = InputFile::open(fifo);
    EXPECT_TRUE(in->is_stream());
    EXPECT_EQ(in->bytes(), bytes.substr(0, InputFile::kStreamHead));
    std::string rest(bytes.size(), '\0');
    std::size_t got = 0;
    for (std::size_t more = 1; more > 0; got += more) more = in->read_stream(rest.data() + got, rest.size() - got);
    EXPECT_EQ(rest.substr(0, got), bytes.substr(InputFile::kStreamHead));
    EXPECT_EQ(in->read_stream(rest.data(), 1), 0U);
  }
  {
    testing::FifoWriter writer(fifo, bytes);
    const auto in = InputFile::open(fifo);
    in->spool(2 * InputFile::kStreamHead + 1);
    EXPECT_FALSE(in->is_stream());
    EXPECT_EQ(in->bytes(), bytes.substr(0, 2 * InputFile::kStreamHead + 1));
  }
  {
    testing::FifoWriter writer(fifo, bytes);
    const auto in = InputFile::open(fifo);
    in->spool(10 * bytes.size());
    EXPECT_EQ(in->bytes(), bytes);
    EXPECT_EQ(in->size(), bytes.size());
  }
}

// A small text file is read no further than one byte above its limit, even one that says it
// has 0 bytes and reads on (/proc/self/pagemap: 8 bytes for every page of the address space).
TEST(SmallTextFiles, ReadNoFurtherThanTheirLimit) {
  if (!fs::exists("/proc/self/pagemap")) GTEST_SKIP() << "no /proc/self/pagemap";
  try {
    (void)text::read_small_file("/proc/self/pagemap", 1u << 20, "config");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), "/proc/self/pagemap: at least 1048577 bytes, more than a config may have (1 MiB)");
  }
}

TEST_F(TextFiles, JsonErrorsShowBytesThatAreNotPrintableAsEscapes) {
  const fs::path f = write("bad.json", "{\"name\": \"t\", \xC3\xA9}");
  try {
    (void)load_config(f);
    FAIL();
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\xC3'), std::string::npos) << what;
    EXPECT_NE(what.find("\\xc3"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace nqc
