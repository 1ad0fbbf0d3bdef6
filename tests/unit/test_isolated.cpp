// formats/isolated: work run in a child process, its result or error brought back, its death
// reported.
#include "formats/isolated.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "system/errors.hpp"
#include "formats/hdf5.hpp"

namespace nqc {
namespace {

using Kind = IsolatedOutcome::Kind;

TEST(Isolated, BringsBackWhatTheChildReturned) {
  const std::vector<std::int32_t> values{3, 1, 4, 1, 5, 9, 2, 6};
  const IsolatedOutcome outcome = run_isolated(
      [&] {
        ByteWriter w;
        w.put_string("attributes");
        w.put(values.data(), values.size());
        w.put_value(std::uint64_t{42});
        return w.take();
      },
      10);
  ASSERT_EQ(outcome.kind, Kind::returned);
  ByteReader r(outcome.bytes);
  EXPECT_EQ(r.string(), "attributes");
  EXPECT_EQ(r.vector<std::int32_t>(), values);
  EXPECT_EQ(r.value<std::uint64_t>(), 42u);
  EXPECT_THROW(r.value<std::uint8_t>(), std::runtime_error);  // nothing left
}

TEST(Isolated, RethrowsTheChildsErrorAsItsType) {
  const IsolatedOutcome input = run_isolated([]() -> std::string { throw InputError("f.txt:3: bad"); }, 10);
  EXPECT_EQ(input.kind, Kind::error);
  EXPECT_THROW(rethrow_error(input), InputError);
  const IsolatedOutcome io =
      run_isolated([]() -> std::string { throw IoError("f.h5: cannot read: Input/output error"); }, 10);
  EXPECT_THROW(rethrow_error(io), IoError);
  const IsolatedOutcome memory = run_isolated([]() -> std::string { throw OutOfMemoryError("f.h5: too large"); }, 10);
  EXPECT_THROW(rethrow_error(memory), OutOfMemoryError);
  const IsolatedOutcome full = run_isolated(
      []() -> std::string {
        throw h5::Error("f.h5: cannot write: No space left on device (...)", "cannot write", ENOSPC);
      },
      10);
  try {
    rethrow_error(full);
    FAIL() << "no exception";
  } catch (const h5::Error& e) {
    EXPECT_EQ(e.error(), ENOSPC);
    EXPECT_EQ(e.code(), kExitIoError);
  }
  const IsolatedOutcome h5 = run_isolated(
      []() -> std::string {
        throw h5::Error("f.h5: cannot read /cases: truncated file (...)", "cannot read /cases: truncated file");
      },
      10);
  ASSERT_EQ(h5.kind, Kind::hdf5_error);
  try {
    rethrow_error(h5);
    FAIL() << "no exception";
  } catch (const h5::Error& e) {
    EXPECT_STREQ(e.what(), "f.h5: cannot read /cases: truncated file (...)");
    EXPECT_EQ(e.detail(), "cannot read /cases: truncated file");
    EXPECT_FALSE(e.system());
    EXPECT_EQ(e.code(), kExitBadInput);  // the file's content
  }
}

TEST(Isolated, ACrashIsAnOutcomeNotOurs) {
  const IsolatedOutcome outcome = run_isolated(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreachable";
      },
      10);
  EXPECT_EQ(outcome.kind, Kind::died);
  EXPECT_EQ(outcome.bytes, "crashed the HDF5 library (SIGSEGV)");
}

TEST(Isolated, AnExitWithoutAResultIsACrash) {  // a sanitizer's report ends the child so
  const IsolatedOutcome outcome = run_isolated([]() -> std::string { ::_exit(1); }, 10);
  EXPECT_EQ(outcome.kind, Kind::died);
  EXPECT_EQ(outcome.bytes, "crashed the HDF5 library (exit status 1)");
}

TEST(Isolated, ALoopEndsAtTheTimeLimit) {
  const IsolatedOutcome outcome = run_isolated(
      []() -> std::string {
        for (;;) ::pause();
      },
      1);
  EXPECT_EQ(outcome.kind, Kind::died);
  EXPECT_EQ(outcome.bytes, "did not end within 1 s");
}

// Work that learns its size once begun asks for more time: the child runs past its first
// limit (1 s, then 60 s more: it sleeps at least 1.5 s), and a loop that asked for more still ends, at
// the limit it reached, which the parent reports. Outside a child, asking is a no-op.
TEST(Isolated, TheChildMayAskForMoreTime) {
  const IsolatedOutcome more = run_isolated(
      []() -> std::string {
        isolated_allow_more(60);
        ::usleep(1'500'000);
        return "done";
      },
      1);
  EXPECT_EQ(more.kind, Kind::returned);
  EXPECT_EQ(more.bytes, "done");
  const IsolatedOutcome loop = run_isolated(
      []() -> std::string {
        isolated_allow_more(1);
        for (;;) ::pause();
      },
      1);
  EXPECT_EQ(loop.kind, Kind::died);
  EXPECT_EQ(loop.bytes, "did not end within 2 s");
  isolated_allow_more(1);  // here: no alarm is set
  EXPECT_EQ(::alarm(0), 0u);
}

TEST(Isolated, TheTimeLimitGrowsWithTheFile) {
  EXPECT_EQ(isolated_seconds(0), 5u);
  EXPECT_EQ(isolated_seconds(13'560), 5u);
  EXPECT_EQ(isolated_seconds(std::uintmax_t{80} << 20), 15u);  // 80 MiB: 5 s + 10 s
}

}  // namespace
}  // namespace nqc
