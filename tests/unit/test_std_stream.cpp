#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "io/errors.hpp"
#include "io/std_stream.hpp"

namespace nqc {
namespace {

std::string input_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(StdStream, OnlyDashIsAStream) {
  EXPECT_TRUE(is_std_stream("-"));
  EXPECT_FALSE(is_std_stream("./-"));
  EXPECT_FALSE(is_std_stream("--"));
  EXPECT_FALSE(is_std_stream(""));
  EXPECT_EQ(text_stream({{"--csv", "x.csv"}, {"-o", ""}}), stdout);
  EXPECT_EQ(text_stream({{"--csv", "x.csv"}, {"--trials-csv", "-"}}), stderr);
}

TEST(StdStream, RefusalsNameTheOptions) {
  EXPECT_EQ(input_error([] { refuse_std_stream("-o", "-", "a results directory; give a directory"); }),
            "-o: '-' (standard output) cannot be a results directory; give a directory");
  EXPECT_EQ(input_error([] { refuse_std_stream("CONFIG", "-", "a config", true); }),
            "CONFIG: '-' (standard input) cannot be a config");
  EXPECT_EQ(input_error([] { refuse_std_stream("-o", "./-", "a directory"); }), "");
  EXPECT_EQ(input_error([] { require_one_stdout({{"--csv", "-"}, {"--trials-csv", "a.csv"}}); }), "");
  EXPECT_EQ(input_error([] { require_one_stdout({{"--csv", "-"}, {"--trials-csv", "-"}}); }),
            "--csv and --trials-csv: both are '-' (standard output); give a file to all but one");
  EXPECT_EQ(input_error([] { require_one_stdout({{"-a", "-"}, {"-b", "-"}, {"-c", "-"}}); }),
            "-a, -b and -c: all are '-' (standard output); give a file to all but one");
}

TEST(StdStream, TextOutputToAFile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "nqc-test-std-stream";
  std::filesystem::create_directories(dir);
  {
    TextOutput out(dir / "a.csv");
    EXPECT_EQ(out.name(), (dir / "a.csv").string());
    out.stream() << "k,count\n1,2\n";
    out.close();
  }
  std::ifstream in(dir / "a.csv");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "k,count\n1,2\n");
  try {
    TextOutput bad(dir / "no-such-dir" / "a.csv");
    FAIL() << "no error";
  } catch (const InputError& e) {  // a missing directory: bad input (exit 1), not an I/O failure
    EXPECT_EQ(std::string(e.what()), (dir / "no-such-dir" / "a.csv").string() + ": cannot write: No such file or directory");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nqc
