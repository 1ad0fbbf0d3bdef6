// aggregate: the per-n table of result files and directories.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "core/engine.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/config.hpp"
#include "experiment/engine_params.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {
namespace {

// A results directory without results.h5 is a run in progress or interrupted: say how much
// of its plan the table covers.
void warn_if_unfinished(const std::filesystem::path& p, std::size_t rows) {
  std::error_code ec;
  if (!std::filesystem::is_directory(p, ec) || std::filesystem::exists(p / "results.h5", ec)) return;
  std::uint64_t planned = 0;
  try {
    planned = make_plan(load_config(p / "config.json")).total_cases;
  } catch (const std::exception&) {
    planned = 0;
  }
  std::fprintf(stderr, "nqc: warning: %s: the run is not finished (no results.h5): the table covers %zu of %s cases\n",
               p.c_str(), rows, planned ? std::to_string(planned).c_str() : "its");
}

}  // namespace

Runner add_aggregate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "aggregate", "Print the table of result files or directories: per n, and per n and diags for instance runs");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto csv = std::make_shared<std::string>();
  cmd->add_option("PATH", *paths, "results directories or HDF5 result files")->required();
  cmd->add_option("--csv", *csv,
                  "also write the table as CSV to this file; - for stdout (the table then going to stderr)");
  cmd->footer(
      "Generated cases: one row per n. Instance runs (a config's \"instances\"): one row per n and diags (the "
      "excluded\n"
      "diagonals of a CSPLib .param case, - for composition files) with the cases solved, proved infeasible and\n"
      "given up, and the times of each verdict.");
  return [paths, csv] {
    std::set<std::filesystem::path> seen;
    for (const auto& p : *paths) {
      refuse_std_stream_results("PATH", p);
      std::error_code ec;
      const auto canonical = std::filesystem::weakly_canonical(p, ec);
      if (!seen.insert(ec ? std::filesystem::path(p) : canonical).second)
        throw InputError(p + ": given twice (its cases would count twice)");
    }
    if (!csv->empty() && !is_std_stream(*csv)) {
      // Where the CSV lands, its links followed as the write follows them (system/durable.hpp).
      const auto target = resolved_output_path(*csv);
      for (const auto& p : seen)
        if (target == p || target == p / "results.h5" || target.parent_path() == p / "shards")
          throw InputError("--csv: " + *csv + " is an input of this aggregate; choose another file");
    }
    // Two inputs of one config hold the same cases: pooling them would count each twice. Runs
    // of different engines, parameters or limits are not one sample: one row per n would mix
    // them (a study split over configs of one engine pools; a comparison is the analysis').
    std::map<std::string, std::string> config_of;
    std::optional<std::pair<std::string, nlohmann::json>> how_first;
    for (const auto& p : *paths) {
      const std::filesystem::path file = representative_file(p);
      if (file.empty()) continue;  // load_rows below reports it
      auto attributes = read_attributes(file);
      const std::string hash = attributes["config_hash"];
      if (const auto [it, fresh] = config_of.emplace(hash, p); !fresh)
        throw InputError(p + " and " + it->second + " hold results of the same config (config_hash " + hash +
                         "); aggregate one of them");
      const nlohmann::json config = nlohmann::json::parse(attributes["config"], nullptr, false);
      if (!config.is_object()) continue;  // load_rows below reports a damaged file
      nlohmann::json how;
      for (const char* key : {"engine", "engine_params", "time_limit_s", "max_nodes"})
        how[key] = config.contains(key) ? config[key] : nlohmann::json();
      // The engine's parameters with its defaults filled in: {"restarts": 3} is grigoryan's {}.
      try {
        const ExperimentConfig parsed = parse_config(config, file.string() + " (config attribute)");
        nlohmann::json params = nlohmann::json::object();
        for (const ParamSpec& spec : engine_info(parsed.engine).params)
          params[std::string(spec.name)] = param_json(spec, spec.get(parsed.engine_options));
        how["engine_params"] = params;
      } catch (const std::exception&) {
        // a config this nqc does not read: compared as written
      }
      if (!how_first) {
        how_first.emplace(p, how);
      } else if (how != how_first->second) {
        std::string what;
        const auto differ = [&what](const std::string& key, const nlohmann::json& a, const nlohmann::json& b) {
          if (a != b) what += (what.empty() ? "" : ", ") + key + " " + a.dump() + " and " + b.dump();
        };
        for (const auto& [key, value] : how.items()) {
          const nlohmann::json& before = how_first->second[key];
          if (key == "engine_params" && how["engine"] == how_first->second["engine"] && value.is_object() &&
              before.is_object()) {
            for (const auto& [param, v] : value.items())  // one engine: the parameters that differ
              differ("engine_params/" + param, before.contains(param) ? before[param] : nlohmann::json(), v);
          } else if (key != "engine_params" || how["engine"] == how_first->second["engine"]) {
            differ(key, before, value);
          }
        }
        throw InputError(
            how_first->first + " and " + p + " are runs of other engines or settings (" + what +
            "): one table would mix them; aggregate each alone, or compare them with python3 -m analysis compare");
      }
    }
    std::vector<CaseRow> rows;
    for (const auto& p : *paths) {
      auto more = load_rows(p);
      warn_if_unfinished(p, more.size());
      rows.insert(rows.end(), more.begin(), more.end());
    }
    // Generated cases and instance runs have tables of their own.
    std::vector<CaseRow> generated;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(generated),
                 [](const CaseRow& r) { return !is_instance_row(r); });
    const bool any_instances = generated.size() < rows.size();
    const auto table = summarize(generated);
    const auto instance_table = summarize_instances(rows);
    if (!csv->empty()) {
      if (!generated.empty() && any_instances)
        throw InputError(
            "--csv: these results hold generated cases and instance runs, whose tables have other columns; "
            "aggregate them apart");
      TextOutput out(*csv);
      out.stream() << (any_instances ? format_instance_csv(instance_table) : format_csv(table));
      out.close();
    }
    FILE* text = text_stream({{"--csv", *csv}});
    std::string shown = generated.empty() && any_instances ? "" : format_table(table);
    if (any_instances) shown += (shown.empty() ? "" : "\n") + format_instance_table(instance_table);
    std::fputs(shown.c_str(), text);
    return 0;
  };
}

}  // namespace nqc::cli
