// run and aggregate.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "cli/commands.hpp"
#include "experiment/aggregate.hpp"
#include "core/engine.hpp"
#include "experiment/config.hpp"
#include "experiment/engine_params.hpp"
#include "experiment/plan.hpp"
#include "experiment/results.hpp"
#include "io/errors.hpp"
#include "io/durable.hpp"
#include "io/std_stream.hpp"
#include "mpi/runner.hpp"
#include "mpi/session.hpp"

namespace nqc::cli {
namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_stop_signal(int) { g_stop.store(true); }

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

// "I/K" with 0 <= I < K -> (I, K); anything else -> InputError.
std::pair<std::uint64_t, std::uint64_t> parse_part(const std::string& text) {
  const auto bad = [&] {
    return InputError("--part: expected I/K with integers 0 <= I < K <= 999999999 (e.g. 0/4), got '" + text + "'");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad();
  const auto number = [&](const std::string& s) {
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos) throw bad();
    return static_cast<std::uint64_t>(std::stoull(s));
  };
  const std::uint64_t i = number(text.substr(0, slash)), k = number(text.substr(slash + 1));
  if (k == 0 || i >= k) throw bad();
  return {i, k};
}

}  // namespace

Runner add_run(CLI::App& app, int& argc, char**& argv) {
  auto* cmd = app.add_subcommand("run", "Run an experiment config (under mpirun: on all ranks) and write HDF5 results");
  auto opt = std::make_shared<RunOptions>();
  auto log_level = std::make_shared<std::string>("info");
  auto quiet = std::make_shared<bool>(false);
  auto help_config = std::make_shared<bool>(false);
  auto config_schema = std::make_shared<bool>(false);
  auto output = std::make_shared<std::string>();
  cmd->add_option("CONFIG", opt->config, "experiment config (JSON); see --help-config");
  cmd->add_option("-o,--output", *output,
                  "results directory, from the current directory (overrides the config's \"output\", which is taken from the "
                  "config file's directory)");
  cmd->add_flag("--resume", opt->resume, "continue an interrupted run in the same results directory");
  cmd->add_flag("--force", opt->force,
                "start over: remove this config's results.h5, shards and plan in DIR first (a directory of another config is "
                "still refused)")
      ->excludes(cmd->get_option("--resume"));
  cmd->add_flag("--repair", opt->repair,
                "rewrite a damaged DIR/config.json or DIR/plan.json from this config, when the result files there carry "
                "its config_hash and plan_hash (implies --resume)");
  auto* dry_run = cmd->add_flag("--dry-run", opt->dry_run, "print the plan's shard and case counts and exit");
  cmd->add_flag("--json", opt->json,
                "with --dry-run: print the plan as one JSON object instead (config, name, output, shards, cases, "
                "shards_done, by_n: [{n, shards, cases, cpu_seconds}], cpu_seconds, core_hours; paths absolute), for scripts")
      ->needs(dry_run);
  auto part = std::make_shared<std::string>();
  auto* part_option = cmd->add_option("--part", *part,
                  "I/K: run only part I (0-based) of K independent parts, e.g. a Slurm array task; for K > 1 "
                  "implies --resume and does not merge (nqc run CONFIG --resume merges once all parts are done); "
                  "0/1 is the whole plan, a plain run")
      ->type_name("I/K");
  cmd->get_option("--force")->excludes(part_option);  // a part must not remove the other parts' shards
  cmd->add_option("--log-level", *log_level, "trace, debug, info, warn, error")->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  cmd->add_flag("-q,--quiet", *quiet, "log warnings, errors and the end-of-launch summary only (no progress lines)");
  auto progress = std::make_shared<double>(-1.0);
  cmd->add_option("--progress", *progress,
                  "seconds between progress lines (cases done on every rank, rate, ETA from the plan's cost estimate); "
                  "0 = none; default 5 on a terminal, 60 otherwise (a batch job's log)")
      ->type_name("SECONDS")
      ->check(kNonNegative);
  cmd->add_flag("--help-config", *help_config, "describe the config keys, engine parameters and paths, and exit");
  cmd->add_flag("--config-schema", *config_schema,
                "print the configs' JSON Schema (what configs/nqc-config.schema.json holds, generated from the config table) and exit");
  cmd->footer(exit_codes_footer({{kExitOk, "done"},
                                 {kExitInterrupted,
                                  "interrupted by SIGTERM, SIGINT or SIGUSR1 (rerun with --resume; under mpirun send SIGUSR1 to "
                                  "mpirun)"},
                                 {kExitEngineBug, "engine bug"}}) +
              " Under mpirun every rank ends with the same code.");
  return [opt, log_level, quiet, help_config, config_schema, output, part, part_option, progress, &argc, &argv] {
    if (*help_config || *config_schema) {
      std::fputs((*help_config ? config_help() : config_schema_text()).c_str(), stdout);
      return 0;
    }
    if (opt->config.empty()) throw InputError("run: a CONFIG file is required (see nqc run --help)");
    refuse_std_stream("CONFIG", opt->config,
                      "a config: every rank reads it by name, and its directory anchors its relative paths; give a file", true);
    refuse_std_stream("-o", *output, "a results directory; give a directory");
    if (!output->empty()) opt->output = *output;
    opt->progress_interval_s = *progress >= 0 ? *progress : (::isatty(STDERR_FILENO) ? 5.0 : 60.0);
    if (part_option->count() > 0) std::tie(opt->part, opt->parts) = parse_part(*part);
    // Before MPI_Init too, so that a signal during start-up is not fatal; again after it, in
    // case the MPI library installed handlers of its own.
    const auto catch_stop_signals = [] {
      std::signal(SIGTERM, on_stop_signal);
      std::signal(SIGINT, on_stop_signal);
      std::signal(SIGUSR1, on_stop_signal);  // mpirun forwards USR1 to the ranks (not TERM: it ends the job itself)
    };
    catch_stop_signals();
    MpiSession session(argc, argv);
    catch_stop_signals();
    setup_logging(session.rank(), *log_level, *quiet);
    // Before anything is written: every task of a wrong world would run the whole plan alone.
    if (const std::string why = session.world_mismatch(); !why.empty()) {
      if (session.speaks()) throw InputError(why);
      return static_cast<int>(kExitBadInput);
    }
    try {
      return run_experiment(*opt, session, g_stop);
    } catch (...) {
      // Anything not handled inside: one message, and every rank ends with its exit code
      // (out of memory 8, a file system error 7), so that no rank waits forever in a
      // collective.
      const ErrorReport error = current_error();
      spdlog::critical("{}", error.message);
      session.abort(error.code);
    }
  };
}

Runner add_aggregate(CLI::App& app) {
  auto* cmd = app.add_subcommand("aggregate", "Print the table of result files or directories: per n, and per n and diags for instance runs");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto csv = std::make_shared<std::string>();
  cmd->add_option("PATH", *paths, "results directories or HDF5 result files")->required();
  cmd->add_option("--csv", *csv, "also write the table as CSV to this file; - for stdout (the table then going to stderr)");
  cmd->footer("Generated cases: one row per n. Instance runs (a config's \"instances\"): one row per n and diags (the excluded\n"
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
      // Where the CSV lands, its links followed as the write follows them (io/durable.hpp).
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
          if (key == "engine_params" && how["engine"] == how_first->second["engine"] && value.is_object() && before.is_object()) {
            for (const auto& [param, v] : value.items())  // one engine: the parameters that differ
              differ("engine_params/" + param, before.contains(param) ? before[param] : nlohmann::json(), v);
          } else if (key != "engine_params" || how["engine"] == how_first->second["engine"]) {
            differ(key, before, value);
          }
        }
        throw InputError(how_first->first + " and " + p + " are runs of other engines or settings (" + what +
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
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(generated), [](const CaseRow& r) { return !is_instance_row(r); });
    const bool any_instances = generated.size() < rows.size();
    const auto table = summarize(generated);
    const auto instance_table = summarize_instances(rows);
    if (!csv->empty()) {
      if (!generated.empty() && any_instances)
        throw InputError("--csv: these results hold generated cases and instance runs, whose tables have other columns; "
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
