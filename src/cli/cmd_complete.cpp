// complete: one composition through one engine (count, its completions: cmd_mpi.cpp).
#include <chrono>
#include <cstdio>

#include "cli/commands.hpp"
#include "core/engine_options.hpp"
#include "core/verifier.hpp"
#include "experiment/engine_params.hpp"
#include "formats/composition_file.hpp"
#include "formats/csplib.hpp"
#include "formats/input_file.hpp"
#include "system/errors.hpp"

namespace nqc::cli {

// Standard input has no extension: a .param text there is told apart by content.
Composition load_instance(const std::string& file, std::optional<int> diags) {
  if (is_param_file(file)) return read_param(file, diags).board;
  const bool from_stdin = is_std_stream(file);
  std::shared_ptr<const InputFile> in = InputFile::open(file);
  if (from_stdin && looks_like_param(in->bytes())) return read_param(*in, diags).board;
  if (diags) throw InputError("--diags: applies to CSPLib .param files only, not to " + file);
  LoadedComposition loaded = read_composition(std::move(in));
  require_consistent(loaded);            // before any search
  return std::move(loaded.composition);  // no copy of an n-row array
}

namespace {

// --param NAME=VALUE (VALUE as JSON, else a string), checked as a config's engine_params.
EngineOptions engine_options(const EngineInfo& engine, const std::vector<std::string>& params) {
  nlohmann::json given = nlohmann::json::object();
  for (const std::string& p : params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--param: expected NAME=VALUE, got '" + p + "'");
    const std::string name = p.substr(0, eq), text = p.substr(eq + 1);
    if (given.contains(name)) throw InputError("--param: " + name + " given twice");
    given[name] = nlohmann::json::accept(text) ? nlohmann::json::parse(text) : nlohmann::json(text);
  }
  EngineOptions options;
  read_engine_params(given, engine, options, "--param", "");
  return options;
}

// Solutions up to this n are printed by `complete` without -o (one line of Q(i), 1-based).
constexpr Index kPrintedSolutionMaxN = 100;

struct CompleteArgs {
  std::string file, output, engine = kDefaultEngine;
  std::uint64_t seed = 1, max_nodes = 0;
  double time_limit_s = 0;
  std::optional<int> diags;
  std::vector<std::string> params;
};

// The summary lines (outcome, engine, n, k, time, counters; the solution of a small board).
void print_summary(const CompleteArgs& a, const Engine& engine, const Result& r, const CompositionDigest& d,
                   double seconds) {
  // The summary goes to stdout, or to stderr when the solution itself does (-o -).
  FILE* summary = text_stream({{"-o", a.output}});
  std::fprintf(summary, "outcome: %s\nengine: %s\nn: %d\nk: %d\ntime_s: %.6f\nbacktracks: %llu\nnodes: %llu\n",
               to_string(r.outcome), engine.name().c_str(), d.n, d.k, seconds,
               static_cast<unsigned long long>(r.counters.backtracks),
               static_cast<unsigned long long>(r.counters.nodes));
  if (r.outcome == Outcome::gave_up) std::fprintf(summary, "limit: %s\n", std::string(to_string(r.limit)).c_str());
  if (r.outcome == Outcome::solved && a.output.empty()) {
    if (d.n <= kPrintedSolutionMaxN) {
      std::string line = "solution:";
      for (const Index col : r.solution.q) line += " " + std::to_string(col);
      std::printf("%s\n", line.c_str());
    } else {
      std::printf("solution: not printed (n > %d): -o FILE writes it, -o - to stdout\n", kPrintedSolutionMaxN);
    }
  }
  std::fflush(summary);
}

int complete_command(const CompleteArgs& a) {
  try {
    (void)engine_info(a.engine);
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("--engine: ") + e.what());
  }
  const std::unique_ptr<Engine> engine = make_engine(a.engine, engine_options(engine_info(a.engine), a.params));
  Composition c = load_instance(a.file, a.diags);
  // The engine may work in the composition's own memory: its digest checks the completion.
  const CompositionDigest d = digest(c);
  Rng rng(a.seed, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const Result r = engine->complete(std::move(c), rng, Limits{a.max_nodes, a.time_limit_s, nullptr});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.outcome == Outcome::solved && !(is_solution(r.solution) && extends(r.solution, d))) {
    std::fprintf(stderr, "nqc: error: bug: engine '%s' returned a completion that fails verification\n",
                 a.engine.c_str());
    return static_cast<int>(kExitEngineBug);
  }
  print_summary(a, *engine, r, d, seconds);
  if (r.outcome == Outcome::solved && !a.output.empty()) write_composition(r.solution, a.output);
  constexpr ExitCode kOutcomeExit[] = {kExitOk, kExitInfeasible, kExitGaveUp};  // by Outcome
  return kOutcomeExit[static_cast<int>(r.outcome)];
}

}  // namespace

Runner add_complete(CLI::App& app) {
  auto* cmd = app.add_subcommand("complete", "Complete a composition file, or prove it has no completion");
  auto a = std::make_shared<CompleteArgs>();
  cmd->add_option("FILE", a->file,
                  "composition file (text, binary or HDF5, found by content) or CSPLib prob079 .param file; - for "
                  "stdin (either)")
      ->required();
  cmd->add_option("--diags", a->diags, "for a .param file: exclude only its first D diagonals (default: all)");
  cmd->add_option(
      "-o,--output", a->output,
      "write the completed solution here (.bin: binary, .h5 or .hdf5: HDF5, else text; - for stdout, the summary then "
      "going to stderr); without -o a solution of n <= " +
          std::to_string(kPrintedSolutionMaxN) + " is printed as a 'solution:' line");
  std::string names;
  for (const auto& e : engine_infos())
    names += "\n  " + e.name + ": " + e.summary +
             (e.max_free_rows != 0 ? " (at most " + std::to_string(e.max_free_rows) + " free rows)" : "");
  cmd->add_option("-e,--engine", a->engine, "engine, one of:" + names)->capture_default_str();
  cmd->add_option(
         "-p,--param", a->params,
         "an engine parameter, NAME=VALUE (repeatable; nqc run --help-config lists each engine's, with defaults and "
         "ranges), e.g. -e minconflicts -p noise=0.2 -p init=random")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
  add_number(cmd, "--seed", a->seed, "seed of the engine's random choices");
  add_number(cmd, "--max-nodes", a->max_nodes,
             "give up after this many placements (sat: CaDiCaL's decisions; 0 = no limit)");
  add_number(cmd, "--time-limit", a->time_limit_s, "give up after this many seconds (0 = no limit)");
  cmd->footer(exit_codes_footer({{kExitOk, "solved"},
                                 {kExitInfeasible, "proved infeasible (no completion)"},
                                 {kExitGaveUp, "gave up"},
                                 {kExitEngineBug, "engine bug"}}) +
              "\n[Grigoryan], [Minton92]: see docs/REFERENCES.md.");
  return [a] { return complete_command(*a); };
}

}  // namespace nqc::cli
