// Provenance records of a results directory, and the background writer of shard files.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "experiment/launches.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;

class Launches : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nqc-launches-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(Launches, RecordsRoundTripWithIdsInOrder) {
  ::setenv("SLURM_JOB_ID", "4243", 1);
  ::setenv("SLURM_ARRAY_JOB_ID", "4240", 1);
  ::setenv("SLURM_ARRAY_TASK_ID", "3", 1);
  ::setenv("SLURM_RESTART_COUNT", "2", 1);
  Launch first = launch_here("0.1.0", "abc123", 1, 4, 16);
  for (const char* name : {"SLURM_JOB_ID", "SLURM_ARRAY_JOB_ID", "SLURM_ARRAY_TASK_ID", "SLURM_RESTART_COUNT"})
    ::unsetenv(name);
  Launch second = launch_here("0.1.0", "abc123", 0, 1, 2);
  register_launch(dir_, first);
  register_launch(dir_, second);
  EXPECT_EQ(first.id, 1U);
  EXPECT_EQ(second.id, 2U);
  first.end_utc = "2026-12-01T05:00:00Z";
  first.exit_status = 4;
  first.shards_done = 7;
  first.cases_done = 700;
  update_launch(dir_, first);
  const std::vector<Launch> back = read_launches(dir_);
  ASSERT_EQ(back.size(), 2U);
  EXPECT_EQ(back[0].id, 1U);
  EXPECT_EQ(back[0].slurm_job_id, "4243");
  EXPECT_EQ(back[0].slurm_array_task, "4240_3");
  EXPECT_EQ(back[0].slurm_restart_count, "2");
  EXPECT_EQ(back[0].part, 1U);
  EXPECT_EQ(back[0].parts, 4U);
  EXPECT_EQ(back[0].world_size, 16);
  EXPECT_EQ(back[0].exit_status, 4);
  EXPECT_EQ(back[0].shards_done, 7U);
  EXPECT_EQ(back[0].cases_done, 700U);
  EXPECT_EQ(back[0].end_utc, "2026-12-01T05:00:00Z");
  EXPECT_EQ(back[1].slurm_job_id, "");
  EXPECT_EQ(back[1].exit_status, -1);  // still running (or killed): no end recorded
  EXPECT_EQ(back[1].end_utc, "");
  EXPECT_FALSE(fs::exists(dir_ / "launches" / ("launch-000003.json")));
}

// Parts of a job array register at once: every launch gets its own id.
TEST_F(Launches, ConcurrentRegistrationsGetDistinctIds) {
  std::vector<std::uint32_t> ids(8);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < ids.size(); ++i)
    threads.emplace_back([&, i] {
      Launch l = launch_here("0.1.0", "x", i, ids.size(), 1);
      register_launch(dir_, l);
      ids[i] = l.id;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(std::set<std::uint32_t>(ids.begin(), ids.end()).size(), ids.size());
  EXPECT_EQ(read_launches(dir_).size(), ids.size());
}

TEST_F(Launches, DamagedRecordIsListedAsDamaged) {
  Launch l = launch_here("0.1.0", "x", 0, 1, 1);
  register_launch(dir_, l);
  std::ofstream(dir_ / "launches" / "launch-000001.json") << "{\"id\": 1, \"start_utc\": ";
  std::vector<std::string> problems;
  const std::vector<Launch> back = read_launches(dir_, &problems);
  ASSERT_EQ(back.size(), 1U);
  EXPECT_EQ(back[0].id, 1U);
  EXPECT_EQ(back[0].hosts, "(record damaged)");
  ASSERT_EQ(problems.size(), 1U);
  EXPECT_EQ(problems[0],
            (dir_ / "launches" / "launch-000001.json").string() +
                ": damaged (parse error at line 1, column 24: syntax error while parsing value - unexpected "
                "end of input; expected '[', '{', or a literal); launch 1 is listed with its id only");
  EXPECT_EQ(back[0].exit_status, -1);
}

TEST(BackgroundWriter, RunsJobsInOrderOneAtATime) {
  BackgroundWriter writer;
  std::vector<int> order;
  std::atomic<int> running{0};
  bool overlapped = false;
  for (int i = 0; i < 20; ++i)
    writer.submit([&, i] {
      if (++running > 1) overlapped = true;
      order.push_back(i);
      --running;
    });
  writer.finish();
  EXPECT_FALSE(overlapped);
  ASSERT_EQ(order.size(), 20U);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(order[static_cast<std::size_t>(i)], i);
}

// A job's error comes back at the next submit (which then does not start its job) or at finish.
TEST(BackgroundWriter, ErrorsComeBackToTheCaller) {
  BackgroundWriter writer;
  writer.submit([] { throw IoError("disk full"); });
  bool ran = false;
  try {
    writer.submit([&] { ran = true; });
    FAIL() << "no error";
  } catch (const IoError& e) {
    EXPECT_STREQ(e.what(), "disk full");
  }
  writer.finish();
  EXPECT_FALSE(ran);
  writer.submit([] { throw IoError("again"); });
  EXPECT_THROW(writer.finish(), IoError);
  writer.finish();  // reported once
}

TEST_F(Launches, CommitFileNamesTheFileOnlyWhenDurable) {
  const PendingFile ok{dir_ / "a.tmp", dir_ / "a"};
  std::ofstream(ok.tmp) << "x";
  commit_file(ok);
  EXPECT_TRUE(fs::exists(ok.target));
  EXPECT_FALSE(fs::exists(ok.tmp));
  const PendingFile gone{dir_ / "b.tmp", dir_ / "b"};
  try {
    commit_file(gone);
    FAIL() << "committed a missing file";
  } catch (const IoError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot open " + gone.tmp.string() + " to sync it: No such file or directory");
  }
  EXPECT_FALSE(fs::exists(gone.target));
}

}  // namespace
}  // namespace nqc
