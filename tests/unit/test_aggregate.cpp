#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "experiment/aggregate.hpp"
#include "experiment/result_schema.hpp"
#include "system/errors.hpp"

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
  EXPECT_DOUBLE_EQ(t[0].bt[0], 0.5);
  EXPECT_EQ(t[0].false_negatives, 1u);
  EXPECT_EQ(t[0].gave_up, 1u);
  EXPECT_EQ(t[1].n, 100);
  EXPECT_DOUBLE_EQ(t[1].mean_s, 5.5);
  EXPECT_DOUBLE_EQ(t[1].median_s, 5.5);
  EXPECT_DOUBLE_EQ(t[1].t90mean_s, 5.0);  // mean of 1..9
  EXPECT_DOUBLE_EQ(t[1].max_s, 10.0);
  EXPECT_DOUBLE_EQ(t[1].bt[0], 0.4);
  EXPECT_DOUBLE_EQ(t[1].mean_backtracks, 0.6);
  EXPECT_DOUBLE_EQ(t[1].bt[1], 0.6);
  EXPECT_DOUBLE_EQ(t[0].bt[4], 0.0);
  EXPECT_DOUBLE_EQ(t[0].bt[3], 0.5);
  const std::string csv = format_csv(t);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "n,cases,mean_s,median_s,t90mean_s,max_s,bt0,bt1,bt2,bt3,bt_more,false_negatives,gave_up,infeasible,"
            "mean_backtracks,mean_k");
  EXPECT_NE(csv.find("\n100,10,5.5,5.5,5,10,0.40000000000000002,"), std::string::npos) << csv;
  const std::string md = format_table(t);
  EXPECT_NE(md.find("|        100 |       10 |  5.500e+00 |"), std::string::npos);
}

// A row of an instance run: `file`, diags in composition_id (as run_instance_case stores it).
CaseRow instance_row(const std::string& file, std::int64_t n, std::uint64_t diags, double wall, std::int8_t outcome) {
  CaseRow r = row(n, wall, 0, outcome);
  r.false_negative = 0;  // an instance's outcome is a result
  r.composition_id = diags;
  r.origin = static_cast<std::uint8_t>(Origin::instance);
  r.instance = fixed_string<sizeof(CaseRow::instance)>(file);
  return r;
}

TEST(Aggregate, InstanceRunsPerNAndDiags) {
  std::vector<CaseRow> rows{
      instance_row("/d/a.param", 10, 5, 1.0, 0),   instance_row("/d/b.param", 10, 5, 3.0, 0),
      instance_row("/d/c.param", 10, 5, 8.0, 1),   instance_row("/d/a.param", 10, 10, 2.0, 1),
      instance_row("/d/b.param", 10, 10, 4.0, 1),  instance_row("/d/c.param", 10, 10, 9.0, 2),
      instance_row("/d/corner.txt", 4, 0, 0.5, 1), row(8, 1.0, 0)};  // the last: a generated case, skipped
  EXPECT_TRUE(is_instance_row(rows[0]));
  EXPECT_FALSE(is_instance_row(rows.back()));
  const auto t = summarize_instances(rows);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].n, 4);
  EXPECT_FALSE(t[0].param.has_value());  // a composition file
  EXPECT_EQ(t[0].files, 1u);
  EXPECT_EQ(t[0].infeasible, 1u);
  EXPECT_TRUE(std::isnan(t[0].solved_s.mean_s));
  EXPECT_DOUBLE_EQ(t[0].infeasible_s.max_s, 0.5);
  EXPECT_EQ(t[1].n, 10);
  EXPECT_EQ(t[1].param, 5u);
  EXPECT_EQ(t[1].files, 3u);
  EXPECT_EQ(t[1].cases, 3u);
  EXPECT_EQ(t[1].solved, 2u);
  EXPECT_EQ(t[1].infeasible, 1u);
  EXPECT_EQ(t[1].gave_up, 0u);
  EXPECT_DOUBLE_EQ(t[1].solved_s.mean_s, 2.0);
  EXPECT_DOUBLE_EQ(t[1].solved_s.median_s, 2.0);
  EXPECT_DOUBLE_EQ(t[1].solved_s.max_s, 3.0);
  EXPECT_DOUBLE_EQ(t[1].infeasible_s.median_s, 8.0);
  EXPECT_TRUE(std::isnan(t[1].gave_up_mean_s));
  EXPECT_EQ(t[2].param, 10u);
  EXPECT_EQ(t[2].solved, 0u);
  EXPECT_EQ(t[2].infeasible, 2u);
  EXPECT_EQ(t[2].gave_up, 1u);
  EXPECT_DOUBLE_EQ(t[2].infeasible_s.mean_s, 3.0);
  EXPECT_DOUBLE_EQ(t[2].gave_up_mean_s, 9.0);
  EXPECT_EQ(
      format_instance_csv(t),
      "n,diags,files,cases,solved,infeasible,gave_up,solved_mean_s,solved_median_s,solved_max_s,infeasible_mean_s,"
      "infeasible_median_s,infeasible_max_s,gave_up_mean_s\n"
      "4,,1,1,0,1,0,,,,0.5,0.5,0.5,\n"
      "10,5,3,3,2,1,0,2,2,3,8,8,8,\n"
      "10,10,3,3,0,2,1,,,,3,3,4,9\n");
  const std::string md = format_instance_table(t);
  EXPECT_NE(
      md.find(
          "| instance           |          4 |         - |        1 |        1 |        0 |          1 |        0 |"),
      std::string::npos)
      << md;
  EXPECT_NE(
      md.find(
          "| instance           |         10 |        10 |        3 |        3 |        0 |          2 |        1 |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find(" 9.000e+00 |\n"), std::string::npos) << md;
}

// One grouping for aggregate's and info's tables: n, then composition files (no diags) first,
// then a .param case's diags (its composition_id); a composition file's composition_id is not diags.
TEST(Aggregate, InstanceGroupsByNThenDiags) {
  const CaseRow param = instance_row("/d/a.param", 10, 5, 1.0, 0), text = instance_row("/d/c.txt", 10, 7, 1.0, 1);
  EXPECT_EQ(instance_file(param), "/d/a.param");
  EXPECT_EQ(instance_group(param), (InstanceGroup{Origin::instance, 10, 5}));
  EXPECT_EQ(instance_group(text), (InstanceGroup{Origin::instance, 10, std::nullopt}));
  EXPECT_LT(instance_group(text), instance_group(param));
  EXPECT_LT(instance_group(param), instance_group(instance_row("/d/a.param", 10, 10, 1.0, 0)));
  EXPECT_LT(instance_group(instance_row("/d/a.param", 8, 10, 1.0, 0)), instance_group(text));
}

// Cases of the generated origins that need not complete: grouped by origin, n and the origin's
// parameter (random: the free rows in solution_id; canonical: k), kept apart from derived rows;
// one CSV holds one origin, its parameter column named by it.
TEST(Aggregate, OtherOriginsPerNAndParameter) {
  const auto made = [](Origin origin, std::int64_t n, std::int64_t k, std::uint64_t solution, std::int8_t outcome) {
    CaseRow r = row(n, 1.0, 0, outcome);
    r.false_negative = 0;
    r.origin = static_cast<std::uint8_t>(origin);
    r.k = k;
    r.solution_id = solution;
    return r;
  };
  const std::vector<CaseRow> rows{made(Origin::random, 20, 10, 10, 0), made(Origin::random, 20, 10, 10, 1),
                                  made(Origin::random, 20, 15, 5, 1), made(Origin::canonical, 8, 2, 3, 1),
                                  made(Origin::derived, 8, 2, 0, 0)};
  const auto t = summarize_instances(rows);
  ASSERT_EQ(t.size(), 3u);  // the derived row is Table 1's
  EXPECT_EQ(t[0].origin, Origin::random);
  EXPECT_EQ(t[0].param, 5u);
  EXPECT_EQ(t[0].infeasible, 1u);
  EXPECT_EQ(t[1].param, 10u);
  EXPECT_EQ(t[1].solved, 1u);
  EXPECT_EQ(t[1].infeasible, 1u);
  EXPECT_EQ(t[1].files, 0u);
  EXPECT_EQ(t[2].origin, Origin::canonical);
  EXPECT_EQ(t[2].param, 2u);  // k
  const std::vector<InstanceSummary> random(t.begin(), t.begin() + 2);
  EXPECT_EQ(format_instance_csv(random).substr(0, 18), "n,free_rows,files,");
  EXPECT_THROW(format_instance_csv(t), InputError);
  const std::string table = format_instance_table(t);
  EXPECT_NE(table.find("|          n | free_rows |"), std::string::npos) << table;
  EXPECT_NE(table.find("|          n |         k |"), std::string::npos) << table;
  EXPECT_NE(table.find("| canonical          |          8 |         2 |"), std::string::npos) << table;
}

}  // namespace
// nqc rows' CSV read back (aggregate --rows): columns by name, enums by name, quoted text.
TEST(Aggregate, RowsFromCsv) {
  std::string header, line;
  for (const ColumnInfo& c : case_columns()) {
    header += std::string(c.name) + ",";
    line += c.name == "outcome"          ? "gave_up,"
            : c.name == "false_negative" ? "FALSE,"
            : c.name == "engine"         ? "sat,"
            : c.name == "limit"          ? "time_limit,"
            : c.name == "instance"       ? "\"a,\"\"b\"\".param\","
            : c.name == "wall_s"         ? "0.25,"
            : c.name == "origin"         ? "instance,"
            : c.name == "orbit_size"     ? "0,"
                                         : "7,";
  }
  std::istringstream in(header + "source\n" + line + "x.h5\n");
  const std::vector<CaseRow> rows = parse_rows_csv(in, "rows.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].n, 7);
  EXPECT_EQ(rows[0].wall_s, 0.25);
  EXPECT_EQ(rows[0].outcome, 2);
  EXPECT_EQ(rows[0].false_negative, 0);  // an instance case
  EXPECT_EQ(engine_name(rows[0].engine), "sat");
  EXPECT_EQ(stop_reason_name(rows[0].limit), "time_limit");
  EXPECT_EQ(instance_file(rows[0]), "a,\"b\".param");
  std::istringstream bad(header + "source\n" + std::string(line).replace(0, 1, "x") + "x.h5\n");
  EXPECT_THROW(parse_rows_csv(bad, "rows.csv"), InputError);
}

// Rows from the CSV are checked by the rule of result rows (implausible), named by line; a
// time the analysis transforms into wall_s (seconds per placed queen) is seconds, accepted.
TEST(Aggregate, CsvRowsAreCheckedAsResultRows) {
  CaseRow per_queen = row(10, 1.0 / 7, 2);  // t / (n - k) with k = 3
  per_queen.k = 3;
  const auto parse = [](const std::vector<CaseRow>& rows) {
    std::string text = rows_csv_header();
    for (const CaseRow& r : rows) text += row_csv(r, "x.h5");
    std::istringstream in(text);
    return parse_rows_csv(in, "rows.csv");
  };
  const std::vector<CaseRow> back = parse({per_queen, row(12, 0.5, 0, 2)});
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].wall_s, 1.0 / 7);
  EXPECT_EQ(back[0].k, 3);
  EXPECT_EQ(back[1].false_negative, 1);
  const auto refusal = [&](const CaseRow& r) -> std::string {
    try {
      parse({per_queen, r});
    } catch (const InputError& e) {
      return e.what();
    }
    return "accepted";
  };
  CaseRow nan = per_queen;
  nan.wall_s = std::nan("");
  EXPECT_EQ(refusal(nan), "rows.csv:3: wall_s = nan, cpu_s = 0.000000, expected seconds >= 0");
  CaseRow infeasible = row(10, 1.0, 0, 1);
  infeasible.false_negative = 0;
  EXPECT_EQ(refusal(infeasible), "rows.csv:3: a derived case (it has a completion) recorded infeasible");
  CaseRow missed = row(10, 1.0, 0, 2);
  missed.false_negative = 0;
  EXPECT_EQ(refusal(missed), "rows.csv:3: false_negative = 0 for a derived case that gave_up, expected 1");
  CaseRow many = per_queen;
  many.k = 11;
  EXPECT_EQ(refusal(many), "rows.csv:3: k = 11 queens, expected 0..n = 0..10");
}

}  // namespace nqc
