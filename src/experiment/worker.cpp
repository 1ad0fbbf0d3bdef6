#include "experiment/worker.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <string>

#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::string case_name(const CaseRow& row) {
  return "case " + std::to_string(row.case_id) + " (n = " + std::to_string(row.n) + ", k = " +
         std::to_string(row.k) + ", solution " + std::to_string(row.solution_id) + ", composition " +
         std::to_string(row.composition_id) + ", seed " + std::to_string(row.seed) + ")";
}

}  // namespace

Composition sample_solution(const ExperimentConfig& config, Index n, std::uint64_t solution_id) {
  Rng rng(derive_seed(config.seed, static_cast<std::uint64_t>(n), solution_id, kSolutionStream));
  return random_solution(n, rng);
}

CaseInput derive_case(const ExperimentConfig& config, const Composition& solution,
                      std::uint64_t solution_id, std::uint64_t composition_id) {
  CaseInput in;
  in.seed = derive_seed(config.seed, static_cast<std::uint64_t>(solution.n()), solution_id, composition_id);
  Rng rng(in.seed, 0);
  const Index k = draw_k(solution.n(), config.k, rng);
  in.composition = derive_composition(solution, k, rng);
  return in;
}

CaseRow run_case(const ExperimentConfig& config, Engine& engine, const Shard& shard,
                 std::uint64_t solution_id, std::uint64_t composition_id, const CaseInput& input,
                 int rank, const std::atomic<bool>* stop, FailureRecord* failure) {
  CaseRow row;
  row.case_id = shard.first_case + (solution_id - shard.first_solution) * shard.compositions_per_solution + composition_id;
  row.shard_id = shard.id;
  row.n = input.composition.n();
  row.k = input.composition.k();
  row.solution_id = solution_id;
  row.composition_id = composition_id;
  row.seed = input.seed;
  row.rank = rank;
  row.engine = fixed_string<24>(engine.name());

  Rng rng(input.seed, 1);
  const Limits limits{config.max_nodes, config.time_limit_s, stop};
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const Result result = engine.complete(input.composition, rng, limits);
  const auto t1 = std::chrono::steady_clock::now();
  row.cpu_s = thread_cpu_seconds() - cpu0;
  row.wall_s = std::chrono::duration<double>(t1 - t0).count();

  row.outcome = static_cast<std::int8_t>(result.outcome);
  row.backtracks = result.counters.backtracks;
  row.nodes = result.counters.nodes;
  row.placed_random = result.counters.placed_random;
  row.placed_search = result.counters.placed_search;
  row.restarts = result.counters.restarts;
  row.limit = fixed_string<24>(result.limit);

  if (result.outcome == Outcome::infeasible)
    throw EngineBugError("engine '" + engine.name() + "' declared " + case_name(row) +
                             " infeasible, but it was derived from a solution: this is a bug in the engine",
                         row.case_id, input.composition);
  if (result.outcome == Outcome::solved) {
    const Verdict v = verify(result.solution);
    if (!v.ok() || result.solution.k() != result.solution.n() || !extends(result.solution, input.composition))
      throw EngineBugError("engine '" + engine.name() + "' returned a completion of " + case_name(row) +
                               " that fails verification: " +
                               (!v.ok() ? v.describe(result.solution) : std::string("incomplete or moves a given queen")),
                           row.case_id, input.composition);
  } else {
    row.false_negative = 1;
    if (failure != nullptr && row.n <= kMaxStoredFailureN) {
      failure->case_id = row.case_id;
      failure->q = input.composition.q;
    }
  }
  return row;
}

ShardRun run_shard(const ExperimentConfig& config, const Shard& shard, int rank,
                   const std::atomic<bool>* stop, const std::function<void()>& after_case) {
  ShardRun run;
  run.data.shard_id = shard.id;
  run.data.rows.reserve(std::min<std::uint64_t>(shard.case_count(), 1 << 16));
  const auto engine = make_engine(config.engine, config.engine_options);
  for (std::uint64_t s = shard.first_solution; s < shard.first_solution + shard.solution_count; ++s) {
    const Composition solution = sample_solution(config, shard.n, s);
    for (std::uint64_t c = 0; c < shard.compositions_per_solution; ++c) {
      if (stop != nullptr && stop->load()) return run;
      const CaseInput input = derive_case(config, solution, s, c);
      FailureRecord failure;
      const CaseRow row = run_case(config, *engine, shard, s, c, input, rank, stop, &failure);
      if (std::string(row.limit.data()) == "stop") return run;  // interrupted: not a result
      run.data.rows.push_back(row);
      if (!failure.q.empty()) run.data.failures.push_back(std::move(failure));
      if (after_case) after_case();
    }
  }
  run.complete = true;
  return run;
}

}  // namespace nqc
