// The worker: builds each case of a shard, runs the engine on it, verifies, emits rows.
#pragma once

#include <exception>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>

#include "core/composition.hpp"
#include "core/engine.hpp"
#include "experiment/case_row.hpp"
#include "experiment/config.hpp"
#include "experiment/plan.hpp"
#include "core/symmetry.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"

namespace nqc {

/// An engine answer that is a bug (a derived case infeasible, a completion the verifier rejects).
class EngineBugError : public std::logic_error {
 public:
  EngineBugError(const std::string& what, std::uint64_t case_id, Composition composition)
      : std::logic_error(what), case_id_(case_id), composition_(std::move(composition)) {}
  [[nodiscard]] std::uint64_t case_id() const { return case_id_; }
  [[nodiscard]] const Composition& composition() const { return composition_; }

 private:
  std::uint64_t case_id_;
  Composition composition_;
};

/// Largest n whose failing compositions are stored in result files.
inline constexpr Index kMaxStoredFailureN = 1'000'000;

/// Solution `solution_id` of the sample for size n (random_solution, kSolutionStream).
Composition sample_solution(const ExperimentConfig& config, Index n, std::uint64_t solution_id);

/// The composition of one case and its seed (derive_seed(config.seed, n, solution id,
/// composition id)); derive_case draws it from Rng(seed, 0) in `solution`'s memory.
struct CaseInput {
  std::uint64_t seed = 0;
  Composition composition;
  std::uint32_t orbit_size = 0;        ///< canonical: its orbit under the board's symmetries
  std::vector<DiagonalPair> excluded;  ///< excluded_diagonals: the diagonals excluded, in order
};
CaseInput derive_case(const ExperimentConfig& config, Composition solution, std::uint64_t solution_id,
                      std::uint64_t composition_id);

/// Most draws of a CSPLib generator for one case of the n board: min(10^4, 10^9 / n^2), >= 1.
std::uint64_t max_draws(Index n);

/// The input of generated case (solution_id, composition_id) of `shard`, from Rng(seed, 0).
/// Throws nqc::InputError naming the config's group when max_draws(n) draws made no case,
/// nqc::Error with kExitInterrupted when `stop` is set during the draws.
CaseInput case_input(const ExperimentConfig& config, const Plan& plan, const Shard& shard, std::uint64_t solution_id,
                     std::uint64_t composition_id, const std::atomic<bool>* stop = nullptr);

/// Calls visit(index, queens, orbit size) for the canonical compositions of k queens on the n
/// board with index in [first, end), in order, until visit returns false; false then.
bool for_each_canonical_case(const Plan& plan, Index n, Index k, std::uint64_t first, std::uint64_t end,
                             const std::function<bool(std::uint64_t, const std::vector<Cell>&, int)>& visit);

/// Runs one case, timing the engine call only, and verifies a completion. Fills `failure` for
/// gave_up with n <= kMaxStoredFailureN. Throws EngineBugError.
CaseRow run_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t solution_id,
                 std::uint64_t composition_id, CaseInput input, int rank, const std::atomic<bool>* stop,
                 FailureRecord* failure);

/// What run_shard did; not `complete` when `stop` or a failure ended it (then it is not done).
struct ShardRun {
  ShardData data;  ///< the cases finished before it ended: results either way
  bool complete = false;
  /// What a case threw, when that ended it.
  std::exception_ptr failure;
};

/// The composition of an instance case. Throws InputError naming the file.
Composition instance_composition(const InstanceCase& instance);

/// Runs one case of an instance config as run_case does (seed: derive_seed(seed, n, file index,
/// diags)). Throws nqc::InputError for an unreadable file, EngineBugError.
CaseRow run_instance_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t case_id,
                          const InstanceCase& instance, int rank, const std::atomic<bool>* stop,
                          FailureRecord* failure);

/// Runs the cases of a shard in order, `after_case` after each, until `*stop` or a case throws;
/// `done`: its first cases (read_partial), not run again. Throws std::invalid_argument when
/// `done` is not a prefix of the shard.
ShardRun run_shard(const ExperimentConfig& config, const Plan& plan, const Shard& shard, int rank,
                   const std::atomic<bool>* stop, const std::function<void()>& after_case, ShardData done = {});

}  // namespace nqc
