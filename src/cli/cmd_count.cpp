// count: the completions of a composition, or Q(N) on all ranks (nqc-mpi only: it needs MPI).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>

#include "cli/commands.hpp"
#include "core/counting.hpp"
#include "system/errors.hpp"
#include "runner/count.hpp"
#include "runner/session.hpp"

namespace nqc::cli {

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
  cmd->add_option("--max-nodes", *max_nodes,
                  "stop after this many placements (0 = no limit; under mpirun, on each rank)")
      ->check(kUnsigned);
  cmd->add_option("--time-limit", *time_limit, "stop after this many seconds (0 = no limit)")->check(kNonNegative);
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
    if (const std::string why = session.world_mismatch(); !why.empty()) {
      if (session.speaks()) throw InputError(why);
      return static_cast<int>(kExitBadInput);
    }
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

}  // namespace nqc::cli
