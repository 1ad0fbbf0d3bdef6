#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <csignal>
#include <functional>
#include <iterator>
#include <sstream>

#include "system/durable.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"

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
  EXPECT_EQ(input_error([] {
              require_one_stdout({{"--csv", "-"}, {"--trials-csv", "-"}});
            }),
            "--csv and --trials-csv: both are '-' (standard output); give a file to all but one");
  EXPECT_EQ(input_error([] {
              require_one_stdout({{"-a", "-"}, {"-b", "-"}, {"-c", "-"}});
            }),
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
    EXPECT_EQ(std::string(e.what()),
              (dir / "no-such-dir" / "a.csv").string() + ": cannot write: No such file or directory");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nqc

namespace nqc {
namespace {

namespace fs = std::filesystem;

// The files of `dir` whose names end in ".part" (ReplacingOutput's temporary files).
int part_files(const fs::path& dir) {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    count += entry.path().filename().string().ends_with(".part") ? 1 : 0;
  return count;
}

// A replaced file keeps what it held until the new one is committed, and its mode; a signal
// while the new one is written removes the temporary file (the child dies of the signal).
TEST(ReplacingOutput, KeepsTheOldFileItsModeAndLeavesNoTemporaryFile) {
  const fs::path dir = fs::temp_directory_path() / ("nqc-replacing-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path target = dir / "out.txt";
  std::ofstream(target) << "old\n";
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write);
  {
    ReplacingOutput output(target);
    EXPECT_NE(output.path(), target);
    std::ofstream(output.path()) << "new\n";
    EXPECT_EQ(part_files(dir), 1);
    std::ifstream in(target);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "old\n") << "not replaced before commit";
  }
  EXPECT_EQ(part_files(dir), 0) << "uncommitted: removed";
  {
    ReplacingOutput output(target);
    std::ofstream(output.path()) << "new\n";
    output.commit();
  }
  std::ifstream in(target);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "new\n");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  for (const int sig : {SIGINT, SIGTERM}) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      ReplacingOutput output(target);
      std::raise(sig);
      ::_exit(0);  // not reached
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << "signal " << sig;
    EXPECT_EQ(part_files(dir), 0) << "signal " << sig << ": the temporary file is removed";
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nqc
