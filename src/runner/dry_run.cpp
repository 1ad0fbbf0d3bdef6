#include "runner/dry_run.hpp"

#include <spdlog/fmt/fmt.h>

namespace nqc {
namespace fs = std::filesystem;

std::string dry_run_text(const DryRun& d) {
  const PlanEstimate estimate = estimate_plan(d.plan);
  std::string out = fmt::format("config {}: {} shards, {} cases, output {}\n", d.config_file.string(),
                                d.plan.shards.size(), d.plan.total_cases, d.config.output);
  out += fmt::format("{:>12} {:>10} {:>14} {:>16}\n", "n", "shards", "cases", "est. CPU s");
  for (const PlanSize& size : estimate.by_n)
    out += fmt::format("{:>12} {:>10} {:>14} {:>16.1f}\n", size.n, size.shards, size.cases, size.cpu_seconds);
  out += fmt::format("{:>12} {:>10} {:>14} {:>16.1f}  ({:.2f} core-hours)\n", "total", d.plan.shards.size(),
                     d.plan.total_cases, estimate.cpu_seconds, estimate.core_hours());
  if (d.finished)
    out += fmt::format("{}: the run of this config is finished ({}): nothing to do (--force starts it over)\n",
                       d.config.output, (fs::path(d.config.output) / "results.h5").string());
  else if (d.has_shards)
    out += fmt::format("{} holds {} shard files of this config: --resume continues the run\n", d.config.output,
                       d.shards_done);
  return out;
}

nlohmann::json dry_run_json(const DryRun& d) {
  const PlanEstimate estimate = estimate_plan(d.plan);
  nlohmann::json by_n = nlohmann::json::array();
  for (const PlanSize& size : estimate.by_n)
    by_n.push_back({{"n", size.n}, {"shards", size.shards}, {"cases", size.cases}, {"cpu_seconds", size.cpu_seconds}});
  return {
      {"config", fs::weakly_canonical(fs::absolute(d.config_file)).string()},
      {"name", d.config.name},
      {"output", fs::weakly_canonical(fs::absolute(d.config.output)).string()},
      {"shards", d.plan.shards.size()},
      {"cases", d.plan.total_cases},
      {"shards_done", d.shards_done},
      {"finished", d.finished},
      {"by_n", by_n},
      {"cpu_seconds", estimate.cpu_seconds},
      {"core_hours", estimate.core_hours()},
  };
}

}  // namespace nqc
