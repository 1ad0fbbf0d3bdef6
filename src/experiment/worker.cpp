#include "experiment/worker.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

#include "core/engine_options.hpp"
#include "core/rng.hpp"
#include "core/sampling.hpp"
#include "core/symmetry.hpp"
#include "core/verifier.hpp"
#include "experiment/result_schema.hpp"
#include "formats/csplib.hpp"
#include "formats/composition_file.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

std::string case_name(const CaseRow& row) {
  return "case " + std::to_string(row.case_id) + " (n = " + std::to_string(row.n) + ", k = " + std::to_string(row.k) +
         ", solution " + std::to_string(row.solution_id) + ", composition " + std::to_string(row.composition_id) +
         ", seed " + std::to_string(row.seed) + ")";
}

}  // namespace

Composition sample_solution(const ExperimentConfig& config, Index n, std::uint64_t solution_id) {
  Rng rng(derive_seed(config.seed, static_cast<std::uint64_t>(n), solution_id, kSolutionStream));
  return random_solution(n, rng);
}

CaseInput derive_case(const ExperimentConfig& config, Composition solution, std::uint64_t solution_id,
                      std::uint64_t composition_id) {
  CaseInput in;
  const Index n = solution.n();
  in.seed = derive_seed(config.seed, static_cast<std::uint64_t>(n), solution_id, composition_id);
  Rng rng(in.seed, 0);
  const Index k = draw_k(n, config.k, rng);
  in.composition = derive_composition(std::move(solution), k, rng);
  return in;
}

std::uint64_t max_draws(Index n) {
  const auto cells = static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(n);
  return std::clamp<std::uint64_t>(1'000'000'000ULL / cells, 1, 10'000);
}

bool for_each_canonical_case(const Plan& plan, Index n, Index k, std::uint64_t first, std::uint64_t end,
                             const std::function<bool(std::uint64_t, const std::vector<Cell>&, int)>& visit) {
  const std::vector<std::uint64_t>& starts = plan.canonical_starts.at({n, k});
  const std::vector<Cell> cells = canonical_first_cells(n);
  // The cell whose compositions hold `first`: the last that starts at or before it.
  auto cell = static_cast<std::size_t>(std::upper_bound(starts.begin(), starts.end(), first) - starts.begin());
  for (cell = cell == 0 ? 0 : cell - 1; cell < cells.size() && starts[cell] < end; ++cell) {
    std::uint64_t index = starts[cell];
    bool going = true;
    for_each_canonical_composition(n, k, cells[cell], [&](const std::vector<Cell>& queens, int orbit_size) {
      if (index >= end) return false;
      if (index >= first) going = visit(index, queens, orbit_size);
      ++index;
      return going;
    });
    if (!going) return false;
  }
  return true;
}

namespace {

// The error of a case that max_draws(n) draws could not make: the config (its JSON path) is at fault.
InputError no_draw(const ExperimentConfig& config, const Shard& shard, std::uint64_t solution_id,
                   std::uint64_t composition_id, const std::string& what, const std::string& expected) {
  const Index n = shard.n;
  const std::uint64_t draws = max_draws(n);
  std::string at = "/" + std::string(kOriginKeys[static_cast<int>(shard.origin)]);
  for (std::size_t g = 0; g < config.groups.size(); ++g)
    if (std::ranges::count(config.groups[g].n, n) > 0 &&
        std::ranges::count(config.groups[g].values, static_cast<Index>(solution_id)) > 0)
      at += "/" + std::to_string(g);
  return InputError(config.source + ": " + at + ": (n = " + std::to_string(n) + ", " +
                    std::string(param_name(shard.origin)) + " = " + std::to_string(solution_id) + "), sample " +
                    std::to_string(composition_id) + ": " + what + " in " + std::to_string(draws) +
                    (draws == 1 ? " draw" : " draws") + " (min(10^4, 10^9 / n^2)); expected " + expected);
}

}  // namespace

CaseInput case_input(const ExperimentConfig& config, const Plan& plan, const Shard& shard, std::uint64_t solution_id,
                     std::uint64_t composition_id, const std::atomic<bool>* stop) {
  const Index n = shard.n;
  if (shard.origin == Origin::derived)
    return derive_case(config, sample_solution(config, n, solution_id), solution_id, composition_id);
  CaseInput in;
  in.seed = derive_seed(config.seed, static_cast<std::uint64_t>(n), solution_id, composition_id);
  Rng rng(in.seed, 0);
  // A draw that fails is drawn again, at most max_draws(n) times, then the config is at fault.
  const std::uint64_t draws = max_draws(n);
  const auto stopped = [&] {
    if (stop != nullptr && stop->load())
      throw_error(kExitInterrupted, "interrupted while drawing sample " + std::to_string(composition_id));
  };
  switch (shard.origin) {
    case Origin::random: {
      const auto queens = n - static_cast<Index>(solution_id);
      for (std::uint64_t draw = 0; draw < draws; ++draw, stopped())
        if (auto c = random_placed_queens(n, queens, rng, stop)) {
          in.composition = std::move(*c);
          return in;
        }
      throw no_draw(config, shard, solution_id, composition_id,
                    "CSPLib's placed-queens procedure placed no " + std::to_string(queens) + " queens",
                    "more free_rows");
    }
    case Origin::excluded_diagonals: {
      const auto diags = static_cast<std::size_t>(solution_id);
      for (std::uint64_t draw = 0; draw < draws; ++draw, stopped()) {
        in.excluded = random_excluded_diagonals(n, 4, rng, diags);
        if (in.excluded.size() == diags) {
          in.composition = excluded_board(n, in.excluded, diags);
          return in;
        }
      }
      throw no_draw(config, shard, solution_id, composition_id,
                    "CSPLib's generator excluded fewer than " + std::to_string(diags) + " diagonals", "fewer diags");
    }
    case Origin::canonical: {
      for_each_canonical_case(plan, n, static_cast<Index>(solution_id), composition_id, composition_id + 1,
                              [&](std::uint64_t, const std::vector<Cell>& queens, int orbit_size) {
                                in.composition = composition_of(n, queens);
                                in.orbit_size = static_cast<std::uint32_t>(orbit_size);
                                return false;
                              });
      if (in.orbit_size == 0)
        throw std::invalid_argument("canonical case " + std::to_string(composition_id) +
                                    " of k = " + std::to_string(solution_id) + ": the plan has fewer");
      return in;
    }
    default: throw std::invalid_argument("case_input: an instance case has no generated input");
  }
}

namespace {

// Runs the engine on one composition, timing only the engine call, checks its answer and fills
// the outcome fields of `row`.
void execute(const ExperimentConfig& config, Engine& engine, Composition&& composition, bool derived,
             const std::atomic<bool>* stop, CaseRow& row, FailureRecord* failure) {
  row.n = composition.n();
  row.k = composition.k();
  row.engine = engine_code(engine.name());
  // The engine gets the composition itself (no copy at n = 10^8); the checks need its digest.
  const CompositionDigest digest = nqc::digest(composition);
  Composition kept;
  if (row.n <= kMaxStoredFailureN) kept = composition;
  Rng rng(row.seed, 1);
  const Limits limits{config.max_nodes, config.time_limit_s, stop};
  const double cpu0 = thread_cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  const Result result = engine.complete(std::move(composition), rng, limits);
  const auto t1 = std::chrono::steady_clock::now();
  row.cpu_s = thread_cpu_seconds() - cpu0;
  row.wall_s = std::chrono::duration<double>(t1 - t0).count();
  row.start_s = std::chrono::duration<double>(t0.time_since_epoch()).count();  // the runner makes it relative

  row.outcome = static_cast<std::int8_t>(result.outcome);
  row.backtracks = result.counters.backtracks;
  row.nodes = result.counters.nodes;
  row.placed_random = result.counters.placed_random;
  row.placed_search = result.counters.placed_search;
  row.restarts = result.counters.restarts;
  row.limit = static_cast<std::uint8_t>(result.limit);  // the `limit` enum's codes are StopReason's

  if (result.outcome == Outcome::infeasible && derived)
    throw EngineBugError("engine '" + engine.name() + "' declared " + case_name(row) +
                             " infeasible, but it was derived from a solution: this is a bug in the engine",
                         row.case_id, kept);
  if (result.outcome == Outcome::solved) {
    const Verdict v = verify(result.solution);
    if (!v.ok() || result.solution.k() != result.solution.n() || !extends(result.solution, digest))
      throw EngineBugError(
          "engine '" + engine.name() + "' returned a completion of " + case_name(row) + " that fails verification: " +
              (!v.ok() ? v.describe(result.solution) : std::string("incomplete or moves a given queen")),
          row.case_id, kept);
  } else if (result.outcome == Outcome::gave_up) {
    row.false_negative = derived ? 1 : 0;  // only a derived case is known to have a completion
    if (failure != nullptr && row.n <= kMaxStoredFailureN) {
      failure->case_id = row.case_id;
      failure->q = std::move(kept.q);
    }
  }
}

}  // namespace

CaseRow run_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t solution_id,
                 std::uint64_t composition_id, CaseInput input, int rank, const std::atomic<bool>* stop,
                 FailureRecord* failure) {
  CaseRow row;
  row.case_id = shard.case_id(solution_id, composition_id);
  row.shard_id = shard.id;
  row.solution_id = solution_id;
  row.composition_id = composition_id;
  row.seed = input.seed;
  row.rank = rank;
  row.origin = static_cast<std::uint8_t>(shard.origin);
  row.orbit_size = input.orbit_size;
  execute(config, engine, std::move(input.composition), shard.origin == Origin::derived, stop, row, failure);
  return row;
}

Composition instance_composition(const InstanceCase& instance) {
  if (instance.param) return read_param(instance.file, instance.diags).board;
  const LoadedComposition loaded = read_composition(instance.file);
  require_consistent(loaded);
  return loaded.composition;
}

CaseRow run_instance_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t case_id,
                          const InstanceCase& instance, int rank, const std::atomic<bool>* stop,
                          FailureRecord* failure) {
  Composition composition = instance_composition(instance);
  CaseRow row;
  row.case_id = case_id;
  row.shard_id = shard.id;
  row.solution_id = instance.file_index;
  row.composition_id = static_cast<std::uint64_t>(instance.diags);
  row.seed = derive_seed(config.seed, static_cast<std::uint64_t>(composition.n()), instance.file_index,
                         static_cast<std::uint64_t>(instance.diags));
  row.rank = rank;
  row.origin = static_cast<std::uint8_t>(Origin::instance);
  row.instance = fixed_string<sizeof(CaseRow::instance)>(instance.file);  // plan_instances checked the length
  execute(config, engine, std::move(composition), false, stop, row, failure);
  return row;
}

namespace {

// One case of a shard: runs it, true if it was kept (false: `stop` ended the shard or it threw).
using RunOne = std::function<bool(const std::function<CaseRow(FailureRecord*)>&)>;

// Runs the shard's cases from its `skip`-th on through `one`; true if it ran to its end.
bool run_cases(const ExperimentConfig& config, const Plan& plan, const Shard& shard, int rank,
               const std::atomic<bool>* stop, Engine& engine, std::uint64_t skip, const RunOne& one) {
  if (shard.origin == Origin::instance) {
    for (std::uint64_t c = shard.first_solution + skip; c < shard.first_solution + shard.solution_count; ++c)
      if (!one([&](FailureRecord* f) {
            return run_instance_case(config, engine, shard, c, plan.instance_cases[c], rank, stop, f);
          }))
        return false;
    return true;
  }
  const std::uint64_t first = shard.first_composition + skip, end = shard.first_composition + shard.composition_count;
  if (shard.origin == Origin::random || shard.origin == Origin::excluded_diagonals) {
    for (std::uint64_t c = first; c < end; ++c)
      if (!one([&](FailureRecord* f) {
            return run_case(config, engine, shard, shard.first_solution, c,
                            case_input(config, plan, shard, shard.first_solution, c, stop), rank, stop, f);
          }))
        return false;
    return true;
  }
  if (shard.origin == Origin::canonical) {
    const Index n = shard.n;
    const std::uint64_t k = shard.first_solution;
    return for_each_canonical_case(plan, n, static_cast<Index>(k), first, end,
                                   [&](std::uint64_t index, const std::vector<Cell>& queens, int orbit) {
                                     CaseInput input;
                                     input.seed = derive_seed(config.seed, static_cast<std::uint64_t>(n), k, index);
                                     input.composition = composition_of(n, queens);
                                     input.orbit_size = static_cast<std::uint32_t>(orbit);
                                     return one([&](FailureRecord* f) {
                                       return run_case(config, engine, shard, k, index, std::move(input), rank, stop,
                                                       f);
                                     });
                                   });
  }
  // Solution by solution; its last composition is made in its own memory (n = 10^8: one copy).
  const std::uint64_t per = shard.composition_count;
  for (std::uint64_t s = shard.first_solution + skip / per; s < shard.first_solution + shard.solution_count; ++s) {
    Composition solution = sample_solution(config, shard.n, s);
    const std::uint64_t c_end = shard.first_composition + per;
    for (std::uint64_t c = shard.first_composition + (s == shard.first_solution + skip / per ? skip % per : 0);
         c < c_end; ++c)
      if (!one([&](FailureRecord* f) {
            CaseInput input = derive_case(config, c + 1 == c_end ? std::move(solution) : Composition(solution), s, c);
            return run_case(config, engine, shard, s, c, std::move(input), rank, stop, f);
          }))
        return false;
  }
  return true;
}

}  // namespace

ShardRun run_shard(const ExperimentConfig& config, const Plan& plan, const Shard& shard, int rank,
                   const std::atomic<bool>* stop, const std::function<void()>& after_case, ShardData done) {
  const std::uint64_t skip = done.rows.size();
  if (skip >= shard.case_count() && shard.case_count() > 0)
    throw std::invalid_argument("shard " + std::to_string(shard.id) + ": " + std::to_string(skip) +
                                " finished cases given for a shard of " + std::to_string(shard.case_count()));
  for (std::uint64_t i = 0; i < skip; ++i)
    if (done.rows[i].case_id != shard.first_case + i)
      throw std::invalid_argument("shard " + std::to_string(shard.id) + ": finished case " + std::to_string(i) +
                                  " has case id " + std::to_string(done.rows[i].case_id) + ", expected " +
                                  std::to_string(shard.first_case + i));
  ShardRun run;
  run.data = std::move(done);
  run.data.shard_id = shard.id;
  run.data.rows.reserve(std::min<std::uint64_t>(shard.case_count(), 1 << 16));
  const auto engine = make_engine(config.engine, config.engine_options);
  const RunOne one = [&](const std::function<CaseRow(FailureRecord*)>& run_one) {
    if (stop != nullptr && stop->load()) return false;  // an interrupted case is no result
    FailureRecord failure;
    CaseRow row;
    try {
      row = run_one(&failure);
    } catch (...) {
      run.failure = std::current_exception();
      return false;
    }
    if (row.limit == static_cast<std::uint8_t>(StopReason::stop)) return false;
    run.data.rows.push_back(row);
    if (!failure.q.empty()) run.data.failures.push_back(std::move(failure));
    if (after_case) after_case();
    return true;
  };
  run.complete = run_cases(config, plan, shard, rank, stop, *engine, skip, one);
  return run;
}

}  // namespace nqc
