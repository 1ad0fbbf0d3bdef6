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

/// Summary of all cases of one board size n: [Grigoryan]'s Table 1 without confidence intervals
/// (the analysis adds them). Times in seconds (wall_s).
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

/// The summaries as CSV with a header line (the analysis' table1.csv), numbers with 17 digits.
std::string format_csv(const std::vector<SizeSummary>& table);

/// True for a case derived from a solution (origin derived): the rows of Table 1.
bool is_derived_row(const CaseRow& row);

/// True for a row of an instance run (origin instance: its `instance` names a file).
bool is_instance_row(const CaseRow& row);

/// The group of a row that is not derived in the tables of outcomes: origin, n and the origin's
/// parameter (param_name; none for a composition file).
struct InstanceGroup {
  Origin origin = Origin::instance;
  std::int64_t n = 0;
  std::optional<std::uint64_t> param;
  auto operator<=>(const InstanceGroup&) const = default;
};

/// The group of a row that is not derived (is_derived_row).
InstanceGroup instance_group(const CaseRow& row);

/// The instance file of an instance row: its `instance` column up to the padding.
std::string_view instance_file(const CaseRow& row);

/// Times in seconds (engine wall time) of the cases of one outcome; NaN when there are none.
struct VerdictTimes {
  double mean_s = 0.0, median_s = 0.0, max_s = 0.0;
};

/// Summary of the cases of one InstanceGroup.
struct InstanceSummary {
  Origin origin = Origin::instance;
  std::int64_t n = 0;
  std::optional<std::uint64_t> param;  ///< InstanceGroup::param
  std::uint64_t files = 0;             ///< distinct instance files (0 for generated origins)
  std::uint64_t cases = 0, solved = 0, infeasible = 0, gave_up = 0;
  VerdictTimes solved_s, infeasible_s;  ///< of the solved cases, of the infeasibility proofs
  double gave_up_mean_s = 0.0;          ///< NaN when none gave up
};

/// One summary per InstanceGroup of the rows among `rows` that are not derived, in
/// InstanceGroup order.
std::vector<InstanceSummary> summarize_instances(const std::vector<CaseRow>& rows);

/// The summaries as Markdown tables, one per origin; "-" where there is no value.
std::string format_instance_table(const std::vector<InstanceSummary>& table);

/// The summaries of one origin as CSV with a header line; empty fields where there is no value.
/// Throws nqc::InputError when `table` holds more than one origin.
std::string format_instance_csv(const std::vector<InstanceSummary>& table);

/// Refuses paths read together that would count cases twice (a path twice, one config_hash
/// twice) and, `pooled`, runs of other engine settings. Throws nqc::InputError naming both paths.
void check_pooling(const std::vector<std::string>& paths, bool pooled);

/// The cases of several runs read together, refused where two runs hold one case.
class PooledCases {
 public:
  /// Adds the rows of `path`. Throws nqc::InputError for a case an earlier path holds.
  void add(const std::string& path, const std::vector<CaseRow>& rows);

 private:
  struct Key {
    std::uint64_t n_origin, a, b;  // (n << 8 | origin) and the origin's identity of the case
    auto operator<=>(const Key&) const = default;
  };
  std::vector<std::string> paths_;
  std::vector<std::pair<Key, std::pair<std::size_t, std::uint64_t>>> keys_;  // sorted; (path, case id)
};

/// The header line of `nqc rows`' CSV: the columns of case_columns(), then `source`.
std::string rows_csv_header();

/// One row of `nqc rows`' CSV, line feed included (seconds with 17 digits, enums by name).
std::string row_csv(const CaseRow& row, const std::string& source);

/// Rows in `nqc rows`' CSV from `in` (columns by name), each checked by implausible(). Throws
/// nqc::InputError "NAME:LINE: ..." for a missing column, a bad field or row.
std::vector<CaseRow> parse_rows_csv(std::istream& in, const std::string& name);

}  // namespace nqc
