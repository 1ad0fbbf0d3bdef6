// rerun and export: one case of a result file, again.
#include <cstdio>
#include <optional>

#include "cli/commands.hpp"
#include "core/engine_options.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/config.hpp"
#include "experiment/pinning.hpp"
#include "experiment/plan.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "experiment/worker.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"
#include "system/stop_signals.hpp"
#include "formats/composition_file.hpp"
#include "formats/text_input.hpp"

namespace nqc::cli {
namespace {

CaseRow find_row(const std::string& results, std::uint64_t case_id) {
  const std::vector<CaseRow> rows = load_rows(results);
  for (const CaseRow& row : rows)
    if (row.case_id == case_id) return row;
  throw InputError(
      results + ": no case " + std::to_string(case_id) + " among its " + std::to_string(rows.size()) + " rows" +
      (is_unfinished_run(results)
           ? " (the run is not finished: nqc run CONFIG -o " + results + " --resume runs the rest)"
       : rows.empty()
           ? ""
           : " (case ids " + std::to_string(rows.front().case_id) + ".." + std::to_string(rows.back().case_id) + ")"));
}

const char* outcome_name(std::int8_t code) { return to_string(static_cast<Outcome>(code)); }

// One line of rerun: what a run of the case gave ("stored: engine ..., outcome ..., ...").
void print_run(const char* label, const CaseRow& r) {
  std::printf("%s engine %s, outcome %s, backtracks %llu, nodes %llu, wall %.6f s\n", label,
              std::string(engine_name(r.engine)).c_str(), outcome_name(r.outcome),
              static_cast<unsigned long long>(r.backtracks), static_cast<unsigned long long>(r.nodes), r.wall_s);
}

// An exported case; as text, after a comment line saying how to run it again.
void write_exported(const Composition& composition, const std::string& to, const std::string& results,
                    const CaseRow& row) {
  if (format_for_output(to) != CompositionFormat::text) return write_composition(composition, to);
  TextOutput out(to);
  out.stream() << "# case " << row.case_id << " of " << results << " (" << outcome_name(row.outcome)
               << " in the run): nqc complete FILE -e " << engine_name(row.engine) << " --seed " << row.seed
               << " runs it again (with the run's engine_params: nqc rerun)\n";
  write_composition(composition, out.stream());
  out.close();
}

// The case rebuilt must be the one run: the plan as pinned in the file's plan_hash (schema 1.2 on).
void check_plan_unchanged(const std::string& results, const std::filesystem::path& file, const Attributes& attrs,
                          const Plan& plan) {
  if (const auto generation = attrs.find("case_generation");
      generation != attrs.end() && generation->second != std::to_string(kCaseGeneration))
    throw InputError(file.string() + ": its cases are of generation " + text::escaped(generation->second) +
                     " (case_generation), this nqc makes generation " + std::to_string(kCaseGeneration) +
                     ": a rebuilt case would not be the one stored");
  const auto stored = attrs.find("plan_hash");
  if (stored == attrs.end()) return;
  const auto config_hash = attrs.find("config_hash");
  const PinnedPlan now = pin_plan(plan, config_hash == attrs.end() ? std::string() : config_hash->second);
  if (now.hash() == stored->second) return;
  std::string change = "plan_hash " + stored->second + " then, " + now.hash() + " now";
  const std::filesystem::path record = std::filesystem::path(results) / "plan.json";
  std::error_code ec;
  if (std::filesystem::is_directory(results, ec) && std::filesystem::exists(record, ec)) try {
      if (std::string what = plan_change(read_plan_file(results), now); !what.empty()) change = what;
    } catch (const InputError&) {
    }
  throw InputError(file.string() + ": the plan changed since the run (" + change +
                   "): a rebuilt case would not be the one stored");
}

// A stored case with the run's config and plan (checked unchanged), which rebuild it.
struct StoredCase {
  CaseRow row;
  ExperimentConfig config;
  Plan plan;
};

StoredCase load_case(const std::string& results, const CaseRow& row) {
  const std::filesystem::path file = representative_file(results);
  const Attributes attrs = read_attributes(file);
  const nlohmann::json config = config_attribute(attrs, file);
  if (config.empty()) throw InputError(file.string() + ": no config attribute (not a result file of nqc run)");
  StoredCase c{row, parse_config(config, file.string() + " (config attribute)"), {}};
  {
    const StopSignalsScope stoppable;  // counting canonical compositions may take a minute
    c.plan = make_plan(c.config, &stop_requested());
  }
  check_plan_unchanged(results, file, attrs, c.plan);
  if (row.shard_id >= c.plan.shards.size())
    throw InputError(file.string() + ": case " + std::to_string(row.case_id) + " is not in its config's plan");
  return c;
}

// A generated case's input, rebuilt from its solution and composition ids.
CaseInput generated_input(const StoredCase& c) {
  return case_input(c.config, c.plan, c.plan.shards[c.row.shard_id], c.row.solution_id, c.row.composition_id);
}

}  // namespace

Runner add_rerun(CLI::App& app) {
  auto* cmd = app.add_subcommand("rerun",
                                 "Rebuild one case of a result file from its stored config and seed, and run it again");
  struct Args {
    std::string results, engine;
    std::uint64_t case_id = 0;
    bool verbose = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->results, "results directory or HDF5 result file")->required();
  cmd->add_option("--case", a->case_id, "case id (the case_id column)")->required()->check(kUnsigned);
  cmd->add_option("-e,--engine", a->engine, "another engine (default: the run's, with its engine_params)");
  cmd->add_flag("--verbose", a->verbose, "also print the composition");
  cmd->footer("Prints the stored row and the new one.\n" +
              exit_codes_footer({{kExitOk, "same outcome and backtracks (for the same engine)"},
                                 {kExitRerunDiffers, "different outcome or backtracks"}}));
  return [a] {
    refuse_std_stream_results("RESULTS", a->results);
    const StoredCase c = load_case(a->results, find_row(a->results, a->case_id));
    const CaseRow& stored = c.row;
    const ExperimentConfig& config = c.config;
    const Shard& shard = c.plan.shards[stored.shard_id];
    const bool same_engine = a->engine.empty() || a->engine == config.engine;
    const auto engine = make_engine(same_engine ? config.engine : a->engine, config.engine_options);
    FailureRecord ignored;
    CaseRow again;
    Composition composition;
    if (shard.origin == Origin::instance) {
      const InstanceCase& instance = c.plan.instance_cases[a->case_id];
      again = run_instance_case(config, *engine, shard, a->case_id, instance, 0, nullptr, &ignored);
    } else {
      const CaseInput input = generated_input(c);
      composition = input.composition;
      again = run_case(config, *engine, shard, stored.solution_id, stored.composition_id, input, 0, nullptr, &ignored);
    }
    // The ids by what they mean for the case's origin (kOriginParams): "free_rows 10, sample 5".
    const auto origin = static_cast<Origin>(stored.origin);
    const std::string first = std::to_string(stored.solution_id), second = std::to_string(stored.composition_id);
    const std::string ids = origin == Origin::derived    ? "solution " + first + ", composition " + second
                            : origin == Origin::instance ? "file " + first + ", composition " + second
                            : origin == Origin::canonical
                                ? "index " + second
                                : std::string(param_name(origin)) + " " + first + ", sample " + second;
    std::printf("case %llu: n = %lld, k = %lld, %s, seed %llu\n", static_cast<unsigned long long>(stored.case_id),
                static_cast<long long>(stored.n), static_cast<long long>(stored.k), ids.c_str(),
                static_cast<unsigned long long>(stored.seed));
    print_run("stored:", stored);
    print_run("rerun: ", again);
    if (a->verbose && !composition.q.empty()) write_composition(composition, std::cout);
    if (!same_engine) return 0;
    const bool same = again.k == stored.k && again.outcome == stored.outcome && again.backtracks == stored.backtracks;
    if (!same) std::fprintf(stderr, "nqc: rerun differs from the stored row\n");
    return static_cast<int>(same ? kExitOk : kExitRerunDiffers);
  };
}

namespace {

// Writes case `case_id` of `results` to `to` ("-": stdout): its composition (stored or rebuilt),
// or a CSPLib case as a .param file. Throws nqc::InputError when `to` cannot hold the case.
void export_case(const std::string& results, std::uint64_t case_id, const std::string& to) {
  const CaseRow row = find_row(results, case_id);
  const bool param_case = is_param_file(std::string(instance_file(row))) ||
                          row.origin == static_cast<std::uint8_t>(Origin::excluded_diagonals);
  const bool param_out = is_param_file(to), composition_out = !param_out && !is_std_stream(to);
  const std::string name = "-o: case " + std::to_string(case_id);
  const std::string use_param = ", which a composition file cannot hold; name a .param file (or - for stdout)";
  if (!param_case && param_out)
    throw InputError(name + " is a composition (" + std::string(kOriginNames[row.origin]) +
                     "), which a CSPLib .param file cannot hold; name a composition file (.txt, .bin, .h5) or -");
  // A .param or excluded_diagonals case's failure record lacks its diagonals: it is rebuilt.
  if (const auto record = param_case ? std::nullopt : find_failure(results, case_id))
    return write_exported(Composition(record->q), to, results, row);
  const StoredCase c = load_case(results, row);
  const Shard& shard = c.plan.shards[c.row.shard_id];
  if (shard.origin == Origin::excluded_diagonals) {
    const CaseInput input = generated_input(c);
    if (input.excluded.empty() && composition_out) return write_exported(input.composition, to, results, row);
    if (composition_out)
      throw InputError(name + " excludes " + std::to_string(input.excluded.size()) + " diagonals" + use_param);
    return write_text(to, format_param(shard.n, input.excluded));
  }
  if (shard.origin != Origin::instance) return write_exported(generated_input(c).composition, to, results, row);
  const InstanceCase& instance_case = c.plan.instance_cases[case_id];
  if (!instance_case.param) return write_exported(instance_composition(instance_case), to, results, row);
  if (composition_out)
    throw InputError(name + " is the CSPLib instance " + instance_case.file + " with " +
                     std::to_string(instance_case.diags) + " excluded diagonals" + use_param);
  // The diagonals the case excluded, as the whole list of a file of its own.
  const ParamInstance param = read_param(instance_case.file, instance_case.diags);
  const std::vector<DiagonalPair> used(param.pairs.begin(), param.pairs.begin() + param.used);
  write_text(to, format_param(param.board.n(), used));
}

}  // namespace

Runner add_export(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "export", "Write the input of any case of a result file (a composition, or a CSPLib .param instance) to a file");
  auto results = std::make_shared<std::string>();
  auto case_id = std::make_shared<std::uint64_t>(0);
  auto output = std::make_shared<std::string>();
  cmd->add_option("RESULTS", *results, "results directory or HDF5 result file")->required();
  cmd->add_option("--case", *case_id, "case id")->required()->check(kUnsigned);
  cmd->add_option(
      "-o,--output", *output,
      "output file (default, or -: stdout); .bin: binary, .h5 or .hdf5: HDF5, else text; a CSPLib case: a .param file");
  cmd->footer("Which cases are stored, which rebuilt, and a CSPLib case's .param file: docs/cli.md.");
  return [results, case_id, output] {
    refuse_std_stream_results("RESULTS", *results);
    export_case(*results, *case_id, output->empty() ? "-" : *output);
    return 0;
  };
}

}  // namespace nqc::cli
