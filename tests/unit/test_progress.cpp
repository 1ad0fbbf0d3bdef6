// The progress line of `nqc run` (src/runner/progress.hpp): counts, rate and an
// ETA weighted by the plan's cost estimate, not by the count of cases.
#include <gtest/gtest.h>

#include "runner/progress.hpp"

namespace nqc {
namespace {

TEST(ProgressLine, EtaFollowsTheEstimatedCostNotTheCountOfCases) {
  // The largest shards go first: 10 of 100 cases done, but 90 of the 100 estimated seconds,
  // in 9 s. Cost left 10 s at 10 estimated s per s: 1 s. (By cases: 90 cases at 1.1/s, 81 s.)
  EXPECT_EQ(progress_line(100, 100.0, 0, 0.0, 10, 90.0, 9.0), "progress: 10/100 cases (10.0%), 1.1 cases/s, ETA 1 s");
  // Cheap cases first: 90 cases done but 10 estimated s in 10 s: 90 s left at 1 per s.
  EXPECT_EQ(progress_line(100, 100.0, 0, 0.0, 90, 10.0, 10.0), "progress: 90/100 cases (90.0%), 9.0 cases/s, ETA 90 s");
}

TEST(ProgressLine, AResumeCountsEarlierCasesInTheTotalButNotInTheRate) {
  // 40 cases (60 s) done before this launch; this launch did 10 more (20 s) in 5 s: 4 s per s,
  // 20 s left: ETA 5 s, 2 cases/s.
  EXPECT_EQ(progress_line(100, 100.0, 40, 60.0, 50, 80.0, 5.0), "progress: 50/100 cases (50.0%), 2.0 cases/s, ETA 5 s");
}

TEST(ProgressLine, UnknownUntilSomethingIsDoneAndCappedAtTheTotals) {
  EXPECT_EQ(progress_line(6, 3.0, 0, 0.0, 0, 0.0, 4.0), "progress: 0/6 cases (0.0%), 0.0 cases/s, ETA unknown");
  EXPECT_EQ(progress_line(6, 3.0, 0, 0.0, 3, 1.0, 0.0), "progress: 3/6 cases (50.0%), 0.0 cases/s, ETA unknown");
  // Reports beyond the plan (the estimate is an estimate) read as the totals: done, ETA 0 s.
  EXPECT_EQ(progress_line(6, 3.0, 0, 0.0, 7, 5.0, 2.0), "progress: 6/6 cases (100.0%), 3.0 cases/s, ETA 0 s");
  // An empty launch (every case done before): 100%, nothing new.
  EXPECT_EQ(progress_line(0, 0.0, 0, 0.0, 0, 0.0, 1.0), "progress: 0/0 cases (100.0%), 0.0 cases/s, ETA unknown");
}

}  // namespace
}  // namespace nqc
