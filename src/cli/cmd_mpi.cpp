// count and run, on all MPI ranks: nqc-mpi's own subcommands (they need MPI; run's logs, spdlog).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <tuple>
#include <string>

#include "cli/commands.hpp"
#include "core/counting.hpp"
#include "experiment/config.hpp"
#include "runner/count.hpp"
#include "runner/runner.hpp"
#include "runner/session.hpp"
#include "system/errors.hpp"
#include "system/stop_signals.hpp"

namespace nqc::cli {

void hand_over_mpi_subcommand(int /*argc*/, char** /*argv*/) {}  // count and run are nqc-mpi's own

namespace {

// False (the first task throws InputError) when this is not the world Slurm or mpirun meant.
bool right_world(const MpiSession& session) {
  const std::string why = session.world_mismatch();
  if (why.empty()) return true;
  if (session.speaks()) throw InputError(why);
  return false;
}

// "I/K" with 0 <= I < K -> (I, K); anything else -> InputError.
std::pair<std::uint64_t, std::uint64_t> parse_part(const std::string& text) {
  std::smatch m;
  if (std::regex_match(text, m, std::regex("([0-9]{1,9})/([0-9]{1,9})")) && std::stoull(m[1]) < std::stoull(m[2]))
    return {std::stoull(m[1]), std::stoull(m[2])};
  throw InputError("--part: expected I/K with integers 0 <= I < K <= 999999999 (e.g. 0/4), got '" + text + "'");
}

// Logs to stderr at `level` (warn when `quiet`); the summary logger stays at info under -q.
void setup_logging(int rank, const std::string& level, bool quiet) {
  auto logger = spdlog::stderr_color_mt("nqc-" + std::to_string(rank));
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [rank " + std::to_string(rank) + "] [%l] %v");
  spdlog::set_default_logger(logger);
  spdlog::set_level(quiet ? spdlog::level::warn : spdlog::level::from_str(level));
  auto summary = logger->clone(kSummaryLogger);
  summary->set_level(quiet ? spdlog::level::info : spdlog::level::from_str(level));
  spdlog::register_logger(summary);
}

struct RunArgs {
  RunOptions opt;
  std::string log_level = "info", output;
  std::optional<std::string> part;
  bool quiet = false, help_config = false, config_schema = false;
  double progress = -1.0;
};

int run_command(RunArgs& a, int& argc, char**& argv) {
  if (a.help_config || a.config_schema) {
    std::fputs((a.help_config ? config_help() : config_schema_text()).c_str(), stdout);
    return 0;
  }
  if (a.opt.config.empty()) throw InputError("run: a CONFIG file is required (see nqc run --help)");
  refuse_std_stream("CONFIG", a.opt.config,
                    "a config: every rank reads it by name, and its directory anchors its relative paths; give a file",
                    true);
  refuse_std_stream("-o", a.output, "a results directory; give a directory");
  if (!a.output.empty()) a.opt.output = a.output;
  a.opt.progress_interval_s = a.progress >= 0 ? a.progress : (::isatty(STDERR_FILENO) ? 5.0 : 60.0);
  if (a.part) std::tie(a.opt.part, a.opt.parts) = parse_part(*a.part);
  catch_stop_signals();  // before MPI_Init (a signal during start-up) and after it (MPI's own handlers)
  MpiSession session(argc, argv);
  catch_stop_signals();
  setup_logging(session.rank(), a.log_level, a.quiet);
  // Before anything is written: every task of a wrong world would run the whole plan alone.
  if (!right_world(session)) return static_cast<int>(kExitBadInput);
  try {
    return run_experiment(a.opt, session, stop_requested());
  } catch (...) {
    // One message, and every rank ends with the code: none waits forever in a collective.
    const ErrorReport error = current_error();
    spdlog::critical("{}", error.message);
    session.abort(error.code);
  }
}

}  // namespace

Runner add_count(CLI::App& app, int& argc, char**& argv) {
  auto* cmd = app.add_subcommand("count", kCountSummary);
  auto target = std::make_shared<std::string>();
  auto max_nodes = std::make_shared<std::uint64_t>(0);
  auto time_limit = std::make_shared<double>(0);
  auto diags = std::make_shared<std::optional<int>>();
  cmd->add_option(
         "N_OR_FILE", *target,
         "board size N (empty board), a composition file (any format), or a CSPLib .param file; - for stdin (either)")
      ->required();
  cmd->add_option("--diags", *diags, "for a .param file: exclude only its first D diagonals (default: all)");
  add_number(cmd, "--max-nodes", *max_nodes,
             "stop after this many placements (0 = no limit; under mpirun, on each rank)");
  add_number(cmd, "--time-limit", *time_limit, "stop after this many seconds (0 = no limit)");
  cmd->footer(
      "The empty board (N <= 64): bit-parallel search with the board's symmetries; under mpirun the ranks share "
      "its prefixes (the first 3 rows) dynamically and rank 0 prints the sum, the same as one process. "
      "A composition: the word search of engine bitboard (at most 128 free rows), on rank 0 only.\n" +
      exit_codes_footer(
          {{kExitOk, "counted"}, {kExitGaveUp, "a limit stopped the count (the count printed is a lower bound)"}}));
  return [target, max_nodes, time_limit, diags, &argc, &argv] {
    Composition c;
    const bool is_number = !target->empty() && target->find_first_not_of("0123456789") == std::string::npos;
    if (is_number && !std::filesystem::exists(*target)) {
      const long long n = std::stoll(target->size() > 10 ? std::string("99999999999") : *target);
      if (n < 1 || n > kMaxBoardSize) throw InputError("N: expected a board size " + kBoardSizes + ", got " + *target);
      require_countable_empty_board(static_cast<Index>(n));  // before its n rows are allocated
      c = Composition(static_cast<Index>(n));
    } else {
      c = load_instance(*target, *diags);
    }
    MpiSession session(argc, argv);
    if (!right_world(session)) return static_cast<int>(kExitBadInput);
    const bool empty_board = c.n() <= 64 && c.k() == 0 && !c.has_excluded_diagonals();
    // A composition is counted by rank 0 alone.
    if (!empty_board && session.rank() != 0) return static_cast<int>(kExitOk);
    const Limits limits{*max_nodes, *time_limit, nullptr};
    const auto t0 = std::chrono::steady_clock::now();
    const CountResult r = empty_board ? count_queens_on_ranks(c.n(), limits, session) : count_completions(c, limits);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const int code = static_cast<int>(r.gave_up ? kExitGaveUp : kExitOk);
    if (session.rank() != 0) return code;
    std::printf("n: %d\nk: %d\ncompletions: %llu%s\nnodes: %llu\ntime_s: %.6f\n", c.n(), c.k(),
                static_cast<unsigned long long>(r.completions), r.gave_up ? " (lower bound)" : "",
                static_cast<unsigned long long>(r.nodes), seconds);
    if (r.gave_up) std::printf("limit: %s\n", std::string(to_string(r.limit)).c_str());
    return code;
  };
}

Runner add_run(CLI::App& app, int& argc, char**& argv) {
  auto* cmd = app.add_subcommand("run", kRunSummary);
  auto a = std::make_shared<RunArgs>();
  RunOptions* opt = &a->opt;
  cmd->add_option("CONFIG", opt->config, "experiment config (JSON); see --help-config");
  cmd->add_option(
      "-o,--output", a->output,
      "results directory, from the current directory (overrides the config's \"output\", which is taken from the "
      "config file's directory)");
  cmd->add_flag("--resume", opt->resume, "continue an interrupted run in the same results directory");
  cmd->add_flag(
         "--force", opt->force,
         "start over: remove this config's results.h5, shards and plan in DIR first (a directory of another config is "
         "still refused)")
      ->excludes(cmd->get_option("--resume"));
  cmd->add_flag(
      "--repair", opt->repair,
      "rewrite a damaged DIR/config.json or DIR/plan.json from this config, when the result files there carry "
      "its config_hash and plan_hash (implies --resume)");
  auto* dry_run = cmd->add_flag("--dry-run", opt->dry_run, "print the plan's shard and case counts and exit");
  cmd->add_flag(
         "--json", opt->json,
         "with --dry-run: print the plan as one JSON object instead (config, name, output, shards, cases, "
         "shards_done, by_n: [{n, shards, cases, cpu_seconds}], cpu_seconds, core_hours; paths absolute), for scripts")
      ->needs(dry_run);
  auto* part_option =
      cmd->add_option("--part", a->part,
                      "I/K: run only part I (0-based) of K independent parts, e.g. a Slurm array task; for K > 1 "
                      "implies --resume and does not merge (nqc run CONFIG --resume merges once all parts are done); "
                      "0/1 is the whole plan, a plain run")
          ->type_name("I/K");
  cmd->get_option("--force")->excludes(part_option);  // a part must not remove the other parts' shards
  cmd->add_option("--log-level", a->log_level, "trace, debug, info, warn, error")
      ->capture_default_str()
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  cmd->add_flag("-q,--quiet", a->quiet, "log warnings, errors and the end-of-launch summary only (no progress lines)");
  cmd->add_option("--progress", a->progress,
                  "seconds between progress lines (cases done on every rank, rate, ETA from the plan's cost estimate); "
                  "0 = none; default 5 on a terminal, 60 otherwise (a batch job's log)")
      ->type_name("SECONDS")
      ->check(kNonNegative);
  cmd->add_flag("--help-config", a->help_config, "describe the config keys, engine parameters and paths, and exit");
  cmd->add_flag("--config-schema", a->config_schema,
                "print the configs' JSON Schema (what configs/nqc-config.schema.json holds, generated from the config "
                "table) and exit");
  cmd->footer(exit_codes_footer(
                  {{kExitOk, "done"},
                   {kExitInterrupted,
                    "interrupted by SIGTERM, SIGINT or SIGUSR1 (rerun with --resume; under mpirun send SIGUSR1 to "
                    "mpirun)"},
                   {kExitEngineBug, "engine bug"}}) +
              " Under mpirun every rank ends with the same code.");
  return [a, &argc, &argv] { return run_command(*a, argc, argv); };
}

}  // namespace nqc::cli
