#include "experiment/plan.hpp"

#include "core/engine.hpp"
#include "core/symmetry.hpp"
#include "experiment/case_row.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"
#include "formats/hash.hpp"
#include "formats/composition_file.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>
#include <map>
#include <set>
#include <numeric>

namespace nqc {

namespace fs = std::filesystem;

double estimated_case_seconds(std::string_view engine, Index n) { return engine_info(engine).cost.seconds(n); }

double instance_case_seconds(const ExperimentConfig& config) {
  return config.time_limit_s > 0 ? config.time_limit_s : 1.0;
}

ShardSize shard_size(const ExperimentConfig& config, Index n, std::uint64_t compositions_per_solution) {
  const double fit = std::floor(config.shard_seconds / estimated_case_seconds(config.engine, n));
  const auto cases = static_cast<std::uint64_t>(std::clamp(fit, 1.0, static_cast<double>(config.shard_cases)));
  const std::uint64_t per = std::max<std::uint64_t>(1, compositions_per_solution);
  return {std::max<std::uint64_t>(1, cases / per), cases >= per ? per : cases};
}

namespace {

// The files of an instance config in file-index order (instance_files_now).
std::vector<std::string> instance_file_list(const ExperimentConfig& config) {
  std::vector<std::string> files;
  for (const std::string& f : config.instances.files) {
    std::error_code ec;
    if (fs::is_directory(f, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : fs::directory_iterator(f, ec))
        if (entry.is_regular_file() && (entry.path().extension() == ".param" || entry.path().extension() == ".txt"))
          found.push_back(entry.path().string());
      std::sort(found.begin(), found.end());
      if (found.empty()) throw InputError(f + ": no instance files (*.param, *.txt) in this directory");
      files.insert(files.end(), found.begin(), found.end());
    } else {
      files.push_back(f);
    }
  }
  // Each file once (a directory and a file in it, ./a and a): else it would count twice.
  std::map<fs::path, std::string> seen;
  for (const std::string& f : files) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(f, ec);
    if (ec) key = fs::absolute(f, ec).lexically_normal();
    const auto [at, fresh] = seen.emplace(key, f);
    if (!fresh && at->second == f)
      throw InputError(f + ": listed twice in instances/files (directly or by its directory); give each file once");
    if (!fresh) throw InputError(f + ": the same file as " + at->second + " in instances/files; give each file once");
  }
  return files;
}

void plan_instances(const ExperimentConfig& config, Plan& plan) {
  plan.instance_files = instance_files_now(config);
  for (std::uint64_t i = 0; i < plan.instance_files.size(); ++i) {
    const std::string& file = plan.instance_files[i].path;
    if (file.size() > kMaxInstancePath)
      throw InputError(file + ": the path is " + std::to_string(file.size()) + " bytes long, more than the " +
                       std::to_string(kMaxInstancePath) + " a result row holds; use a shorter path");
    if (is_param_file(file)) {
      const ParamInstance all = read_param(file, std::nullopt);
      for (const int d : config.instances.diags) {
        const int used = d < 0 ? all.numdiags : d;
        if (used > all.numdiags)
          throw InputError(file + ": diags " + std::to_string(used) +
                           " (from the config's instances/diags) is above numdiags = " + std::to_string(all.numdiags));
        plan.instance_cases.push_back({file, i, used, all.board.n(), true});
      }
    } else {
      const LoadedComposition loaded = read_composition(file);
      require_consistent(loaded);
      plan.instance_cases.push_back({file, i, 0, loaded.composition.n(), false});
    }
  }
  const double per_case = instance_case_seconds(config);
  const auto per_shard = static_cast<std::uint64_t>(
      std::clamp(std::floor(config.shard_seconds / per_case), 1.0, static_cast<double>(config.shard_cases)));
  for (std::uint64_t first = 0; first < plan.instance_cases.size(); first += per_shard) {
    Shard shard;
    shard.id = plan.shards.size();
    shard.origin = Origin::instance;
    shard.first_solution = first;
    shard.solution_count = std::min<std::uint64_t>(per_shard, plan.instance_cases.size() - first);
    shard.compositions_per_solution = 1;
    shard.composition_count = 1;
    shard.first_case = first;
    shard.cost = static_cast<double>(shard.solution_count) * per_case;
    shard.n = plan.instance_cases[first].n;
    plan.shards.push_back(shard);
  }
  plan.total_cases = plan.instance_cases.size();
}

// Appends `shard` (its cases given) as the plan's next: its id, first case id and cost.
void push_shard(Plan& plan, Shard shard, double case_seconds) {
  shard.id = plan.shards.size();
  shard.first_case = plan.total_cases;
  shard.cost = static_cast<double>(shard.case_count()) * case_seconds;
  plan.total_cases += shard.case_count();
  plan.shards.push_back(shard);
}

// A shard of every run of up to `per_shard` of the `count` cases of one origin's value.
void add_runs(Plan& plan, Origin origin, Index n, std::uint64_t solution, std::uint64_t count, std::uint64_t per_shard,
              double case_seconds) {
  for (std::uint64_t c = 0; c < count; c += per_shard) {
    Shard shard;
    shard.origin = origin;
    shard.n = n;
    shard.first_solution = solution;
    shard.solution_count = 1;
    shard.compositions_per_solution = count;
    shard.first_composition = c;
    shard.composition_count = std::min(per_shard, count - c);
    push_shard(plan, shard, case_seconds);
  }
}

// The other generated origins: per group, n and value, runs of its samples (canonical: of its
// compositions in enumeration order, counted here per first queen's cell).
void plan_groups(const ExperimentConfig& config, Plan& plan, const std::atomic<bool>* stop) {
  for (const CaseGroup& group : config.groups)
    for (const Index n : group.n) {
      const double case_seconds = estimated_case_seconds(config.engine, n);
      const std::uint64_t per_shard = shard_size(config, n, 1).solutions;
      for (const Index v : group.values) {
        std::uint64_t count = group.samples;
        if (config.origin == Origin::canonical) {
          std::vector<std::uint64_t>& starts = plan.canonical_starts[{n, v}];
          starts.assign(1, 0);
          for (const Cell& first : canonical_first_cells(n)) {
            count = starts.back();
            // The stop flag every 2^20 compositions (about 0.1-0.7 s).
            bool going = true;
            for_each_canonical_composition(n, v, first, [&](const std::vector<Cell>&, int) {
              return going = (++count & 0xFFFFF) != 0 || stop == nullptr || !stop->load();
            });
            if (!going)
              throw_error(kExitInterrupted, "interrupted while counting the canonical compositions of (n = " +
                                                std::to_string(n) + ", k = " + std::to_string(v) + ")");
            starts.push_back(count);
          }
        }
        add_runs(plan, config.origin, n, static_cast<std::uint64_t>(v), count, per_shard, case_seconds);
      }
    }
}

}  // namespace

std::vector<InstanceFile> instance_files_now(const ExperimentConfig& config) {
  std::vector<InstanceFile> out;
  for (const std::string& f : instance_file_list(config)) {
    const FileDigest digest = digest_file(f);
    out.push_back({f, digest.bytes, hex64(digest.xxh64)});
  }
  return out;
}

Plan make_plan(const ExperimentConfig& config, const std::atomic<bool>* stop) {
  Plan plan;
  if (config.origin == Origin::instance) {
    plan_instances(config, plan);
    return plan;
  }
  if (config.origin != Origin::derived) {
    plan_groups(config, plan, stop);
    return plan;
  }
  std::map<Index, std::uint64_t> solutions_used;  // next free solution id per n
  for (const SizeGroup& group : config.sizes) {
    const std::uint64_t per = group.compositions_per_solution;
    for (const Index n : group.n) {
      const double case_seconds = estimated_case_seconds(config.engine, n);
      const ShardSize size = shard_size(config, n, per);
      const std::uint64_t solutions_per_shard = size.solutions;
      const std::uint64_t compositions_per_shard = size.compositions;
      std::uint64_t& base = solutions_used[n];
      for (std::uint64_t s = 0; s < group.solutions; s += solutions_per_shard) {
        for (std::uint64_t c = 0; c < per; c += compositions_per_shard) {
          Shard shard;
          shard.n = n;
          shard.first_solution = base + s;
          shard.solution_count = std::min(solutions_per_shard, group.solutions - s);
          shard.compositions_per_solution = per;
          shard.first_composition = c;
          shard.composition_count = std::min(compositions_per_shard, per - c);
          push_shard(plan, shard, case_seconds);
        }
      }
      base += group.solutions;
    }
  }
  return plan;
}

std::vector<std::uint64_t> schedule_order(const Plan& plan) {
  std::vector<std::uint64_t> order(plan.shards.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return plan.shards[a].cost > plan.shards[b].cost; });
  return order;
}

PlanEstimate estimate_plan(const Plan& plan) {
  std::map<Index, PlanSize> by_n;
  if (plan.instance_cases.empty()) {  // a shard holds cases of one n
    for (const Shard& s : plan.shards) {
      ++by_n[s.n].shards;
      by_n[s.n].cases += s.case_count();
      by_n[s.n].cpu_seconds += s.cost;
    }
  } else {
    // Instance shards may mix sizes: a shard counts for every n it holds.
    for (const Shard& s : plan.shards) {
      std::set<Index> sizes;
      const double per_case = s.case_count() ? s.cost / static_cast<double>(s.case_count()) : 0.0;
      for (std::uint64_t c = s.first_solution; c < s.first_solution + s.solution_count; ++c) {
        PlanSize& size = by_n[plan.instance_cases[c].n];
        ++size.cases;
        size.cpu_seconds += per_case;
        sizes.insert(plan.instance_cases[c].n);
      }
      for (const Index n : sizes) ++by_n[n].shards;
    }
  }
  PlanEstimate out;
  for (auto& [n, size] : by_n) {
    size.n = n;
    out.cpu_seconds += size.cpu_seconds;
    out.by_n.push_back(size);
  }
  return out;
}

std::vector<std::uint64_t> part_order(const Plan& plan, std::uint64_t part, std::uint64_t parts) {
  const std::vector<std::uint64_t> order = schedule_order(plan);
  std::vector<std::uint64_t> mine;
  for (std::uint64_t p = part; p < order.size(); p += parts) mine.push_back(order[p]);
  return mine;
}

}  // namespace nqc
