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

/// An engine declared a derived (completable) composition infeasible, or returned a completion
/// the verifier rejects: a bug in the engine. Carries the composition.
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

/// Solution `solution_id` of the sample for size n: random_solution from
/// Rng(derive_seed(config.seed, n, solution_id, kSolutionStream)).
Composition sample_solution(const ExperimentConfig& config, Index n, std::uint64_t solution_id);

/// The composition of one case and its seed, seed = derive_seed(config.seed, n, solution id,
/// composition id): k by draw_k and the rows by derive_composition, both from Rng(seed, 0)
/// (the engine later draws from Rng(seed, 1)), made in `solution`'s memory.
struct CaseInput {
  std::uint64_t seed = 0;
  Composition composition;
  std::uint32_t orbit_size = 0;        ///< canonical: its orbit under the board's symmetries
  std::vector<DiagonalPair> excluded;  ///< excluded_diagonals: the diagonals excluded, in order
};
CaseInput derive_case(const ExperimentConfig& config, Composition solution, std::uint64_t solution_id,
                      std::uint64_t composition_id);

/// Most draws of a CSPLib generator for one random case of the n board: min(10^4, 10^9 / n^2),
/// at least 1 (a draw costs up to n^2 steps).
std::uint64_t max_draws(Index n);

/// The input of generated case (solution_id, composition_id) of `shard` (of any origin but
/// instance) of `plan`, seed derive_seed(config.seed, n, solution_id, composition_id) and its
/// composition from Rng(seed, 0): derived: derive_case of sample_solution; random: CSPLib's
/// placed queens with solution_id free rows (random_placed_queens, drawn again until one stands);
/// excluded_diagonals: the first solution_id of random_excluded_diagonals(n, 4) on the empty
/// board (drawn again until one has that many); canonical: the composition_id-th canonical
/// composition of solution_id queens (for_each_canonical_case). Throws nqc::InputError naming
/// the config and its group when max_draws(n) draws made no case, nqc::Error with
/// kExitInterrupted when `stop` is set during the draws.
CaseInput case_input(const ExperimentConfig& config, const Plan& plan, const Shard& shard, std::uint64_t solution_id,
                     std::uint64_t composition_id, const std::atomic<bool>* stop = nullptr);

/// Calls visit(index, queens, orbit size) for the canonical compositions of k queens on the n
/// board with enumeration index in [first, end) (plan.canonical_starts: from the first queen's
/// cell that holds `first` on), in order, until visit returns false; false then.
bool for_each_canonical_case(const Plan& plan, Index n, Index k, std::uint64_t first, std::uint64_t end,
                             const std::function<bool(std::uint64_t, const std::vector<Cell>&, int)>& visit);

/// Runs one case, timing the engine call only (wall and thread CPU seconds), and verifies a
/// completion independently (complete, consistent, extending the composition's digest). Fills
/// `failure` for a case not completed (gave_up) with n <= kMaxStoredFailureN. Throws
/// EngineBugError for a completion that fails verification, or `infeasible` for a derived case.
CaseRow run_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t solution_id,
                 std::uint64_t composition_id, CaseInput input, int rank, const std::atomic<bool>* stop,
                 FailureRecord* failure);

/// What run_shard did; not `complete` when `stop` or a failure ended it (then it is not done).
struct ShardRun {
  ShardData data;  ///< the cases finished before it ended: results either way
  bool complete = false;
  /// What ended it, when not `stop` between cases: a case's input that could not be made
  /// (nqc::InputError), an engine bug (EngineBugError), out of memory, nqc::Error with
  /// kExitInterrupted (stopped while drawing a case), or anything else a case threw.
  std::exception_ptr failure;
};

/// The composition of an instance case (its file; a .param file with the case's diags).
/// Throws InputError naming the file.
Composition instance_composition(const InstanceCase& instance);

/// Runs one case of an instance config as run_case does; `infeasible` is a result and no case
/// is a false negative. Seed: derive_seed(seed, n, file index, diags). Throws nqc::InputError
/// for a file that became unreadable, EngineBugError for a completion that fails verification.
CaseRow run_instance_case(const ExperimentConfig& config, Engine& engine, const Shard& shard, std::uint64_t case_id,
                          const InstanceCase& instance, int rank, const std::atomic<bool>* stop,
                          FailureRecord* failure);

/// Runs the cases of a shard in case-id order, `after_case` after each, stopping after the
/// current case once `*stop` is set; a case that throws ends the shard (ShardRun::failure),
/// keeping the cases before it. `done`: the first cases, finished by an interrupted run
/// (read_partial), kept and not run again. Throws std::invalid_argument when `done` is not a
/// prefix of the shard.
ShardRun run_shard(const ExperimentConfig& config, const Plan& plan, const Shard& shard, int rank,
                   const std::atomic<bool>* stop, const std::function<void()>& after_case, ShardData done = {});

}  // namespace nqc
