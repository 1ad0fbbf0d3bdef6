#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <functional>
#include <new>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>

#include "system/errors.hpp"
#include "formats/hdf5.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

TEST(ExitCodes, OneTableOfDistinctCodesAndNames) {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < kExitCodes.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(kExitCodes[i].code), i);  // by value, none missing
    EXPECT_TRUE(names.insert(kExitCodes[i].name).second) << kExitCodes[i].name;
    EXPECT_FALSE(kExitCodes[i].meaning.empty());
  }
  EXPECT_EQ(kExitCodes.size(), 9u);
  EXPECT_EQ(kExitBadInput, 1);
  EXPECT_EQ(kExitIoError, 7);
  EXPECT_EQ(kExitOutOfMemory, 8);
  EXPECT_EQ(exit_code_name(6), "rerun_differs");
  EXPECT_EQ(exit_code_name(9), "unknown");
  const std::string text = exit_codes_text();
  EXPECT_EQ(text.rfind("Exit codes:\n  0 ok             success: ", 0), 0u) << text;
  EXPECT_NE(text.find("\n  7 io_error       the system refused a read or write: "), std::string::npos) << text;
  EXPECT_EQ(
      exit_codes_footer({{kExitOk, "written"}, {kExitInfeasible, "no solution"}}),
      "Exit codes: 0 written, 2 no solution; every subcommand: 1 bad_input, 7 io_error, 8 out_of_memory (nqc --help).");
}

TEST(ExitCodes, TheSystemsErrorsAreIoErrorsButAPathThatNamesNothing) {
  for (const int e : {ENOENT, ENOTDIR, EISDIR, ENAMETOOLONG, ELOOP, EEXIST})
    EXPECT_EQ(errno_exit_code(e), kExitBadInput) << e;
  for (const int e : {ENOSPC, EDQUOT, EROFS, EACCES, EPERM, EIO, EFBIG, EMFILE})
    EXPECT_EQ(errno_exit_code(e), kExitIoError) << e;
  EXPECT_EQ(errno_exit_code(ENOMEM), kExitOutOfMemory);
  EXPECT_EQ(errno_exit_code(EAGAIN), kExitOutOfMemory);  // a thread that could not start
  EXPECT_THROW(throw_errno("f: cannot read", ENOENT), InputError);
  EXPECT_THROW(throw_errno("f: cannot read", ENOMEM), OutOfMemoryError);
  try {
    throw_errno("f: cannot write", ENOSPC);
    FAIL() << "no exception";
  } catch (const IoError& e) {
    EXPECT_STREQ(e.what(), "f: cannot write: No space left on device");
    EXPECT_EQ(e.code(), kExitIoError);
  }
  try {
    throw_error(kExitRerunDiffers, "differs");
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), kExitRerunDiffers);
  }
}

// current_error: what main prints and returns, and what `run` logs and ends every rank with.
ErrorReport report_of(const std::function<void()>& f) {
  try {
    f();
  } catch (...) {
    return current_error();
  }
  return {kExitOk, "nothing thrown"};
}

TEST(ExitCodes, EveryExceptionHasItsCode) {
  const ErrorReport input = report_of([] { throw InputError("c.json: /seed: expected an integer"); });
  EXPECT_EQ(input.code, kExitBadInput);
  EXPECT_EQ(input.message, "c.json: /seed: expected an integer");
  EXPECT_EQ(report_of([] { throw IoError("x"); }).code, kExitIoError);
  const ErrorReport memory = report_of([] { throw std::bad_alloc(); });
  EXPECT_EQ(memory.code, kExitOutOfMemory);
  EXPECT_EQ(memory.message, "out of memory (the board or the file is too large for this machine)");
  const auto fs_error = [](int e) {
    return report_of(
        [e] { throw std::filesystem::filesystem_error("cannot list", std::error_code(e, std::generic_category())); });
  };
  EXPECT_EQ(fs_error(ENOSPC).code, kExitIoError);
  EXPECT_EQ(fs_error(ENOENT).code, kExitBadInput);
  EXPECT_EQ(report_of([] { throw std::logic_error("a bug"); }).code, kExitBadInput);  // not classified
}

// An HDF5 failure's code follows its cause: the system's errno (the stack's "errno = N"), or
// the file's content.
TEST(ExitCodes, Hdf5ErrorsCarryTheSystemsErrno) {
  EXPECT_EQ(h5::Error("f.h5: cannot read /cases: checksum", "cannot read /cases: checksum").code(), kExitBadInput);
  EXPECT_EQ(h5::Error("f.h5: cannot write", "cannot write", ENOSPC).code(), kExitIoError);
  const auto dir = std::filesystem::temp_directory_path() / "nqc-test-errors-no-such-dir";
  std::filesystem::remove_all(dir);
  try {
    (void)h5::create_file(dir / "x.h5");
    FAIL() << "created";
  } catch (const h5::Error& e) {
    EXPECT_EQ(e.error(), ENOENT) << e.what();
    EXPECT_EQ(e.code(), kExitBadInput);  // a directory that does not exist: the user's path
  }
}

TEST(ExitCodes, SmallFilesThatCannotBeReadSayWhy) {
  const auto missing = std::filesystem::temp_directory_path() / "nqc-test-errors-missing.json";
  std::filesystem::remove(missing);
  try {
    (void)text::read_small_file(missing, 1024, "config");
    FAIL() << "read";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()), missing.string() + ": cannot open: No such file or directory");
  }
}

}  // namespace
}  // namespace nqc
