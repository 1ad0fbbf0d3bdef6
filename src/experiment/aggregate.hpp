// Per-n summaries of result rows: the columns of the paper's Table 1 that nqc can compute.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/case_row.hpp"

namespace nqc {

/// Summary of all cases of one board size n. Times in seconds (engine wall time).
struct SizeSummary {
  std::int64_t n = 0;
  std::uint64_t cases = 0;
  double mean_s = 0.0;
  double median_s = 0.0;
  double t90mean_s = 0.0;       ///< mean of the fastest 90% (floor(0.9 cases), at least 1), [Grigoryan]'s t90mean
  double max_s = 0.0;
  double share_no_backtrack = 0.0;  ///< share of cases with 0 backtracks
  double mean_backtracks = 0.0;
  std::uint64_t false_negatives = 0;
  std::uint64_t gave_up = 0;
  std::uint64_t infeasible = 0;
};

/// One summary per distinct n, in increasing n.
std::vector<SizeSummary> summarize(const std::vector<CaseRow>& rows);

/// The summaries as a Markdown table (one header line, one separator, one line per n).
std::string format_table(const std::vector<SizeSummary>& table);

/// The summaries as CSV with a header line.
std::string format_csv(const std::vector<SizeSummary>& table);

}  // namespace nqc
