#include "experiment/aggregate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>

#include "core/engine.hpp"

namespace nqc {

std::vector<SizeSummary> summarize(const std::vector<CaseRow>& rows) {
  std::map<std::int64_t, std::vector<const CaseRow*>> by_n;
  for (const CaseRow& r : rows) by_n[r.n].push_back(&r);
  std::vector<SizeSummary> table;
  for (const auto& [n, group] : by_n) {
    SizeSummary s;
    s.n = n;
    s.cases = group.size();
    std::vector<double> t;
    t.reserve(group.size());
    std::uint64_t no_bt = 0, bt = 0;
    for (const CaseRow* r : group) {
      t.push_back(r->wall_s);
      no_bt += r->backtracks == 0 ? 1 : 0;
      bt += r->backtracks;
      s.false_negatives += r->false_negative;
      s.gave_up += r->outcome == static_cast<std::int8_t>(Outcome::gave_up) ? 1 : 0;
      s.infeasible += r->outcome == static_cast<std::int8_t>(Outcome::infeasible) ? 1 : 0;
    }
    std::sort(t.begin(), t.end());
    const auto m = static_cast<double>(t.size());
    s.mean_s = std::accumulate(t.begin(), t.end(), 0.0) / m;
    s.median_s = t.size() % 2 == 1 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
    const std::size_t fast = std::max<std::size_t>(1, t.size() * 9 / 10);
    s.t90mean_s = std::accumulate(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(fast), 0.0) / static_cast<double>(fast);
    s.max_s = t.back();
    s.share_no_backtrack = static_cast<double>(no_bt) / m;
    s.mean_backtracks = static_cast<double>(bt) / m;
    table.push_back(s);
  }
  return table;
}

std::string format_table(const std::vector<SizeSummary>& table) {
  std::string out =
      "|          n |    cases |     mean s |   median s |  t90mean s |      max s | 0 backtracks | false neg | gave up |\n"
      "|-----------:|---------:|-----------:|-----------:|-----------:|-----------:|-------------:|----------:|--------:|\n";
  char line[256];
  for (const SizeSummary& s : table) {
    std::snprintf(line, sizeof line, "| %10lld | %8llu | %10.3e | %10.3e | %10.3e | %10.3e | %11.2f%% | %9llu | %7llu |\n",
                  static_cast<long long>(s.n), static_cast<unsigned long long>(s.cases), s.mean_s, s.median_s,
                  s.t90mean_s, s.max_s, 100.0 * s.share_no_backtrack,
                  static_cast<unsigned long long>(s.false_negatives), static_cast<unsigned long long>(s.gave_up));
    out += line;
  }
  return out;
}

std::string format_csv(const std::vector<SizeSummary>& table) {
  std::string out = "n,cases,mean_s,median_s,t90mean_s,max_s,share_no_backtrack,mean_backtracks,false_negatives,gave_up,infeasible\n";
  char line[320];
  for (const SizeSummary& s : table) {
    std::snprintf(line, sizeof line, "%lld,%llu,%.9g,%.9g,%.9g,%.9g,%.6f,%.6f,%llu,%llu,%llu\n",
                  static_cast<long long>(s.n), static_cast<unsigned long long>(s.cases), s.mean_s, s.median_s,
                  s.t90mean_s, s.max_s, s.share_no_backtrack, s.mean_backtracks,
                  static_cast<unsigned long long>(s.false_negatives), static_cast<unsigned long long>(s.gave_up),
                  static_cast<unsigned long long>(s.infeasible));
    out += line;
  }
  return out;
}

}  // namespace nqc
