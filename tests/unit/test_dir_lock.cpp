// One owner per results directory: lock files, scopes, stale locks.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "system/dir_lock.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

class DirLock : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nqc-lock-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The message of the LockHeldError that claiming `scope` throws ("" if none).
  std::string refusal(const std::string& scope) {
    try {
      DirectoryLock lock(dir_, scope);
    } catch (const LockHeldError& e) {
      return e.what();
    }
    return "";
  }

  void write_lock(const std::string& scope, const std::string& host, long long pid, long long start_ticks = 0,
                  const std::string& slurm_job = "4242_3") {
    fs::create_directories(dir_ / "locks");
    std::ofstream(dir_ / "locks" / (scope + ".lock"))
        << R"({"scope": ")" << scope << R"(", "host": ")" << host << R"(", "pid": )" << pid << R"(, "start_ticks": )"
        << start_ticks << R"(, "slurm_job": ")" << slurm_job << R"(", "since_utc": "2026-12-01T04:00:00Z"})"
        << "\n";
  }

  // This process as a task of Slurm job 4242 (restart `restart`), until the destructor.
  struct InSlurmJob {
    explicit InSlurmJob(const char* restart) {
      ::setenv("SLURM_JOB_ID", "4242", 1);
      ::setenv("SLURM_RESTART_COUNT", restart, 1);
    }
    ~InSlurmJob() {
      ::unsetenv("SLURM_JOB_ID");
      ::unsetenv("SLURM_RESTART_COUNT");
    }
  };

  static std::string host() {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return buf;
  }

  fs::path dir_;
};

TEST_F(DirLock, ASecondLaunchIsRefusedNamingTheHolder) {
  DirectoryLock first(dir_, "all");
  const auto h = DirectoryLock::read(first.file());
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->pid, ::getpid());
  EXPECT_EQ(h->host, host());
  const std::string lock = (dir_ / "locks" / "all.lock").string();
  EXPECT_EQ(refusal("all"), dir_.string() + ": in use by nqc run on " + host() + ", pid " + std::to_string(::getpid()) +
                                ", since " + h->since_utc + " (the whole plan, " + lock +
                                "): wait for it to end (if it is dead, remove " + lock + ")");
  // A part of the plan overlaps the whole plan.
  EXPECT_NE(refusal("part-0-of-2"), "");
}

TEST_F(DirLock, PartsOfOneArrayShareTheDirectory) {
  DirectoryLock a(dir_, "part-0-of-2");
  DirectoryLock b(dir_, "part-1-of-2");
  EXPECT_NE(refusal("part-1-of-2"), "");  // the same part twice
  EXPECT_NE(refusal("part-0-of-3"), "");  // another split overlaps
  EXPECT_NE(refusal("all"), "");          // the merge needs every part done
}

TEST_F(DirLock, ReleasedOnDestruction) {
  { DirectoryLock first(dir_, "all"); }
  EXPECT_FALSE(fs::exists(dir_ / "locks" / "all.lock"));
  EXPECT_EQ(refusal("all"), "");
  EXPECT_TRUE(fs::is_empty(dir_ / "locks"));  // no temporary file left either
}

TEST_F(DirLock, StaleLocksOfThisHostAreRemoved) {
  // A PID above the kernel's maximum (2^22) is no process.
  write_lock("all", host(), 99999999);
  std::string stale;
  {
    DirectoryLock lock(dir_, "all", &stale);
    EXPECT_EQ(stale, (dir_ / "locks" / "all.lock").string() + ": removed a stale lock (pid 99999999 on " + host() +
                         " is gone)");
    EXPECT_EQ(DirectoryLock::read(lock.file())->pid, ::getpid());
  }
  // A live PID with another start time is a reused PID: stale too.
  write_lock("part-0-of-2", host(), ::getpid(), 1);
  stale.clear();
  DirectoryLock whole(dir_, "all", &stale);
  EXPECT_NE(stale, "");
  EXPECT_FALSE(fs::exists(dir_ / "locks" / "part-0-of-2.lock"));
}

TEST_F(DirLock, LocksOfAnotherHostAreRefused) {
  write_lock("part-1-of-4", "node017", 1234);
  const std::string lock = (dir_ / "locks" / "part-1-of-4.lock").string();
  EXPECT_EQ(
      refusal("all"),
      dir_.string() +
          ": in use by nqc run on node017, pid 1234, Slurm job 4242_3, since 2026-12-01T04:00:00Z (part-1-of-4, " +
          lock + "): wait for it to end (if it is dead, remove " + lock + ")");
  EXPECT_EQ(refusal("part-2-of-4"), "");
  std::ofstream(dir_ / "locks" / "all.lock") << "{not json";
  EXPECT_EQ(refusal("part-2-of-4"),
            dir_.string() + ": in use by a lock file that cannot be read (" + (dir_ / "locks" / "all.lock").string() +
                "): wait for it to end (if it is dead, remove " + (dir_ / "locks" / "all.lock").string() + ")");
}

TEST_F(DirLock, AnEarlierAttemptOfThisSlurmJobIsStale) {
  // Killed at its time limit on node017, requeued here: the same job id.
  write_lock("all", "node017", 1234);  // slurm_job "4242_3"
  ::setenv("SLURM_ARRAY_JOB_ID", "4242", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  ::setenv("SLURM_JOB_ID", "4245", 1);
  ::setenv("SLURM_RESTART_COUNT", "1", 1);
  std::string stale;
  {
    DirectoryLock lock(dir_, "all", &stale);
    EXPECT_EQ(DirectoryLock::read(lock.file())->slurm_job, "4242_3 (restart 1)");
  }
  ::unsetenv("SLURM_ARRAY_JOB_ID");
  ::unsetenv("SLURM_ARRAY_TASK_ID");
  ::unsetenv("SLURM_JOB_ID");
  ::unsetenv("SLURM_RESTART_COUNT");
  EXPECT_EQ(stale, (dir_ / "locks" / "all.lock").string() +
                       ": removed a stale lock (pid 1234 on node017, an earlier attempt of Slurm job 4242_3)");
}

TEST_F(DirLock, AnotherTaskOfTheSameAttemptIsNotStale) {
  // srun without an MPI launch: two tasks of one attempt, on two hosts; neither is earlier.
  write_lock("all", "node017", 1234, 0, "4242 (restart 1)");
  const InSlurmJob job("1");
  EXPECT_NE(refusal("all"), "");
  EXPECT_TRUE(fs::exists(dir_ / "locks" / "all.lock"));
}

TEST_F(DirLock, ALaterAttemptIsNotStale) {
  // The lock of restart 2 seen by a task that still believes it is restart 1.
  write_lock("all", "node017", 1234, 0, "4242 (restart 2)");
  const InSlurmJob job("1");
  EXPECT_NE(refusal("all"), "");
}

TEST_F(DirLock, AZombieHolderIsStale) {
  // A killed rank that its launcher has not reaped yet holds no lock.
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  for (int i = 0; i < 1000; ++i) {  // until the child has exited (a zombie: not reaped below)
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text;
    std::getline(stat, text);
    if (text.find(") Z ") != std::string::npos) break;
    ::usleep(1000);
  }
  write_lock("all", host(), child);
  std::string stale;
  {
    DirectoryLock lock(dir_, "all", &stale);
    EXPECT_EQ(stale, (dir_ / "locks" / "all.lock").string() + ": removed a stale lock (pid " + std::to_string(child) +
                         " on " + host() + " is gone)");
  }
  ::waitpid(child, nullptr, 0);
}

TEST(DirLockScope, ScopeOfARun) {
  EXPECT_EQ(DirectoryLock::scope_of(0, 1), "all");
  EXPECT_EQ(DirectoryLock::scope_of(3, 8), "part-3-of-8");
}

}  // namespace
}  // namespace nqc
