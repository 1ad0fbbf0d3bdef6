// Summaries of result rows: per n for generated cases (the columns of the paper's Table 1 that
// nqc can compute), per n and diags for instance runs (their outcomes are results).
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/case_row.hpp"

namespace nqc {

/// Summary of all cases of one board size n: [Grigoryan]'s Table 1, as far as it needs no
/// statistics library (the analysis adds the confidence intervals). Times in seconds (engine
/// wall time, or the time column the rows carry in wall_s).
struct SizeSummary {
  std::int64_t n = 0;
  std::uint64_t cases = 0;
  double mean_s = 0.0;
  double median_s = 0.0;
  double t90mean_s = 0.0;  ///< mean of the fastest 90% (floor(0.9 cases), at least 1), [Grigoryan]'s t90mean
  double max_s = 0.0;
  std::array<double, 5> bt{};  ///< shares (0..1) with 0, 1, 2, 3 and more than 3 backtracks
  std::uint64_t false_negatives = 0;
  std::uint64_t gave_up = 0;
  std::uint64_t infeasible = 0;
  double mean_backtracks = 0.0;
  double mean_k = 0.0;  ///< queens in the composition
};

/// One summary per distinct n, in increasing n.
std::vector<SizeSummary> summarize(const std::vector<CaseRow>& rows);

/// The summaries as a Markdown table (one header line, one separator, one line per n).
std::string format_table(const std::vector<SizeSummary>& table);

/// The summaries as CSV with a header line: n,cases,mean_s,median_s,t90mean_s,max_s,bt0,bt1,bt2,
/// bt3,bt_more,false_negatives,gave_up,infeasible,mean_backtracks,mean_k (the columns of the
/// analysis' table1.csv), numbers with 17 significant digits (read back exactly).
std::string format_csv(const std::vector<SizeSummary>& table);

/// True for a row of an instance run (its `instance` names a file), false for a generated case.
bool is_instance_row(const CaseRow& row);

/// The group of an instance row in the tables by n and diags (aggregate's, info's): its n, and
/// the excluded diagonals of a CSPLib .param case (its composition_id); no diags for a
/// composition file's case. Ordered by n, then composition files first, then diags.
struct InstanceGroup {
  std::int64_t n = 0;
  std::optional<std::uint64_t> diags;
  auto operator<=>(const InstanceGroup&) const = default;
};

/// The group of an instance row (is_instance_row).
InstanceGroup instance_group(const CaseRow& row);

/// The instance file of an instance row: its `instance` column up to the padding.
std::string_view instance_file(const CaseRow& row);

/// Times in seconds (engine wall time) of the cases of one outcome; NaN when there are none.
struct VerdictTimes {
  double mean_s = 0.0, median_s = 0.0, max_s = 0.0;
};

/// Summary of the instance cases of one n and one diags: the cases of CSPLib .param files
/// run with `diags` excluded diagonals, or (diags empty) of composition files.
struct InstanceSummary {
  std::int64_t n = 0;
  std::optional<std::uint64_t>
      diags;                ///< a .param case's excluded diagonals (its composition_id); none for composition files
  std::uint64_t files = 0;  ///< distinct instance files
  std::uint64_t cases = 0, solved = 0, infeasible = 0, gave_up = 0;
  VerdictTimes solved_s, infeasible_s;  ///< of the solved cases, of the infeasibility proofs
  double gave_up_mean_s = 0.0;          ///< NaN when none gave up
};

/// One summary per (n, diags) of the instance rows among `rows` (others are skipped), in
/// increasing n, composition files before the diags of .param files in increasing order.
std::vector<InstanceSummary> summarize_instances(const std::vector<CaseRow>& rows);

/// The instance summaries as a Markdown table; diags "-" for composition files, times "-"
/// where no case had that outcome.
std::string format_instance_table(const std::vector<InstanceSummary>& table);

/// The instance summaries as CSV with a header line (the columns of python3 -m analysis's
/// instances_by_diags.csv: n,diags,files,cases,solved,infeasible,gave_up,solved_mean_s, ...);
/// empty fields where there is no value.
std::string format_instance_csv(const std::vector<InstanceSummary>& table);

}  // namespace nqc

namespace nqc {

/// The one rule for reading the result files of several paths together (nqc aggregate, nqc
/// rows and through it the analysis). A path given twice, or two paths of one config (equal
/// config_hash: the same cases), would count cases twice: refused. With `pooled` (one table
/// over all rows), the runs must also agree in how their cases were run (engine, its
/// parameters with defaults filled in, time_limit_s, max_nodes): else refused, naming what
/// differs. Without it, runs of any configs may be read together (the caller keeps them
/// apart by config_hash). Throws nqc::InputError, one line naming both paths.
void check_pooling(const std::vector<std::string>& paths, bool pooled);

}  // namespace nqc

namespace nqc {

/// The header line of `nqc rows`' CSV: the columns of case_columns(), then `source`.
std::string rows_csv_header();

/// One row of `nqc rows`' CSV (ends in a line feed): integers in decimal, seconds with 17
/// digits (read back exactly), enums by name, the instance file quoted as CSV needs, then
/// `source` (the file it came from).
std::string row_csv(const CaseRow& row, const std::string& source);

/// Rows as `nqc rows` prints them (CSV with its header; columns matched by name, `source`
/// ignored) from `in`, named `name` in errors. Throws nqc::InputError "NAME:LINE: ..." for a
/// missing column, a field that is not of its column's kind, or an unknown enum name.
std::vector<CaseRow> parse_rows_csv(std::istream& in, const std::string& name);

}  // namespace nqc
