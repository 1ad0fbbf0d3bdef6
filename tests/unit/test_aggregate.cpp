#include <gtest/gtest.h>

#include "experiment/aggregate.hpp"

namespace nqc {
namespace {

CaseRow row(std::int64_t n, double wall, std::uint64_t backtracks, std::int8_t outcome = 0) {
  CaseRow r;
  r.n = n;
  r.wall_s = wall;
  r.backtracks = backtracks;
  r.outcome = outcome;
  r.false_negative = outcome != 0 ? 1 : 0;
  return r;
}

TEST(Aggregate, PerNStatistics) {
  std::vector<CaseRow> rows;
  for (int i = 1; i <= 10; ++i) rows.push_back(row(100, i, i <= 4 ? 0 : 1));
  rows.push_back(row(10, 2.0, 0));
  rows.push_back(row(10, 4.0, 3, 2));
  const auto t = summarize(rows);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].n, 10);
  EXPECT_EQ(t[0].cases, 2u);
  EXPECT_DOUBLE_EQ(t[0].mean_s, 3.0);
  EXPECT_DOUBLE_EQ(t[0].median_s, 3.0);
  EXPECT_DOUBLE_EQ(t[0].t90mean_s, 2.0);  // floor(0.9 * 2) = 1 fastest case
  EXPECT_DOUBLE_EQ(t[0].share_no_backtrack, 0.5);
  EXPECT_EQ(t[0].false_negatives, 1u);
  EXPECT_EQ(t[0].gave_up, 1u);
  EXPECT_EQ(t[1].n, 100);
  EXPECT_DOUBLE_EQ(t[1].mean_s, 5.5);
  EXPECT_DOUBLE_EQ(t[1].median_s, 5.5);
  EXPECT_DOUBLE_EQ(t[1].t90mean_s, 5.0);  // mean of 1..9
  EXPECT_DOUBLE_EQ(t[1].max_s, 10.0);
  EXPECT_DOUBLE_EQ(t[1].share_no_backtrack, 0.4);
  EXPECT_DOUBLE_EQ(t[1].mean_backtracks, 0.6);
  const std::string csv = format_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "n,cases,mean_s,median_s,t90mean_s,max_s,share_no_backtrack,mean_backtracks,false_negatives,gave_up,infeasible");
  EXPECT_NE(csv.find("\n100,10,5.5,5.5,5,10,0.400000,0.600000,0,0,0\n"), std::string::npos);
  const std::string md = format_table(t);
  EXPECT_NE(md.find("|        100 |       10 |  5.500e+00 |"), std::string::npos);
}

}  // namespace
}  // namespace nqc
