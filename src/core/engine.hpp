// The one interface of all completion engines (docs/engines.md).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/composition.hpp"
#include "core/param_spec.hpp"
#include "core/rng.hpp"

namespace nqc {

/// What an engine call ended with, one row each: X(NAME, CODE), the one table of outcomes (the
/// `outcome` column's HDF5 enum and the CLI's names follow). CODE is stored: 0, 1, 2, ... in order.
#define NQC_OUTCOMES(X)                                             \
  X(solved, 0)     /* a completion, checked by the verifier */      \
  X(infeasible, 1) /* no completion: proved by a complete search */ \
  X(gave_up, 2)    /* a limit or the engine's own budget, no verdict */

/// Why an engine call (or a count) stopped, one row each: X(NAME, CODE), the one table of limit
/// names. CODE is stored: never renumber or reuse one (0, 1, 2, ... in order).
#define NQC_STOP_REASONS(X)                                                                        \
  X(none, 0)                /* not stopped by a limit: solved, infeasible, or within its limits */ \
  X(max_nodes, 1)           /* Limits::max_nodes placements were tried */                          \
  X(time_limit, 2)          /* Limits::time_limit_s wall-clock seconds passed */                   \
  X(stop, 3)                /* the stop flag (SIGTERM) was set */                                  \
  X(grigoryan_limits, 4)    /* grigoryan's own budgets spent: the paper's "no completion" */       \
  X(minconflicts_limits, 5) /* minconflicts' moves and restarts spent */

/// True when `codes` are 0, 1, 2, ... in order (an X-macro table's CODE column).
constexpr bool counts_up(std::initializer_list<int> codes) {
  int expected = 0;
  for (const int code : codes)
    if (code != expected++) return false;
  return true;
}

/// An enum of a table X(NAME, CODE) with CODE 0, 1, 2, ... in order (checked), its names by code
/// (NAMES) and to_string returning RET (a NUL-terminated literal): "?" for a code out of the table.
#define NQC_ENUM_VALUE(name, code) name = code,
#define NQC_ENUM_NAME(name, code) #name,
#define NQC_ENUM_CODE(name, code) code,
#define NQC_ENUM_TABLE(ENUM, BASE, NAMES, TABLE, RET)                                                  \
  enum class ENUM : BASE { TABLE(NQC_ENUM_VALUE) };                                                    \
  static_assert(counts_up({TABLE(NQC_ENUM_CODE)}), #ENUM ": the codes must be 0, 1, 2, ... in order"); \
  inline constexpr std::string_view NAMES[] = {TABLE(NQC_ENUM_NAME)};                                  \
  constexpr RET to_string(ENUM value) {                                                                \
    const auto code = static_cast<std::size_t>(value);                                                 \
    return code < std::size(NAMES) ? NAMES[code].data() : "?";                                         \
  }

/// Outcome, kOutcomeNames and to_string(Outcome): "solved", "infeasible", "gave_up".
NQC_ENUM_TABLE(Outcome, std::int8_t, kOutcomeNames, NQC_OUTCOMES, const char*)

/// StopReason, kStopReasonNames and to_string(StopReason): "none", "max_nodes", ..., what result
/// files and the CLI show.
NQC_ENUM_TABLE(StopReason, std::uint8_t, kStopReasonNames, NQC_STOP_REASONS, std::string_view)

#undef NQC_ENUM_TABLE
#undef NQC_ENUM_CODE
#undef NQC_ENUM_NAME
#undef NQC_ENUM_VALUE

/// Bounds on one engine call. Zero means "no bound".
struct Limits {
  std::uint64_t max_nodes = 0;              ///< placements tried, over all phases
  double time_limit_s = 0.0;                ///< wall-clock seconds
  const std::atomic<bool>* stop = nullptr;  ///< polled cooperative stop (SIGTERM), may be null
};

/// Counters of one engine call, deterministic for a given (composition, seed, engine).
struct Counters {
  std::uint64_t backtracks = 0;     ///< retracted placements (exact) or returns to a base level
  std::uint64_t nodes = 0;          ///< placements tried, all phases
  std::uint64_t placed_random = 0;  ///< queens placed by random phases (kept in the solution)
  std::uint64_t placed_search = 0;  ///< queens placed by the final (search) phase
  std::uint64_t restarts = 0;       ///< random fills thrown away and redone
};

/// The result of an engine call. `solution` is set (k == n) only when solved.
struct Result {
  Outcome outcome = Outcome::gave_up;
  Composition solution;
  Counters counters;
  StopReason limit = StopReason::none;  ///< for gave_up: which limit stopped it; else none
};

/// A completion engine: completes a consistent composition or decides it has none.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Name as used in configs and on the command line.
  [[nodiscard]] virtual std::string name() const = 0;
  /// Completes a consistent `composition` (else std::invalid_argument), every random choice from `rng`.
  virtual Result complete(const Composition& composition, Rng& rng, const Limits& limits) = 0;
  /// The same, free to work in the composition's own memory (no copy at n = 10^9).
  virtual Result complete(Composition&& composition, Rng& rng, const Limits& limits) {
    return complete(static_cast<const Composition&>(composition), rng, limits);
  }
};

/// An engine's estimated CPU seconds per derived case of board size n: base_s + at_1000_s *
/// (n / 1000)^exponent, fitted on this project's machine kind (BENCHMARKS.md, "Cost estimates").
struct CaseCost {
  double base_s = 2e-5;     ///< per case whatever n (the default: `auto`'s fit)
  double at_1000_s = 7e-5;  ///< the n-dependent part at n = 1000
  double exponent = 1.15;   ///< its growth in n
  [[nodiscard]] double seconds(Index n) const;
};

/// An engine as the registry (engine.cpp) declares it: the one place of engine names and facts.
struct EngineInfo {
  std::string name;       ///< as used in configs and on the command line
  std::uint8_t code = 0;  ///< stored in result files (the `engine` column's enum): never renumber or reuse one
  bool complete = false;  ///< a complete search: may answer `infeasible` (a proof)
  bool excluded_diagonals = false;  ///< takes compositions with excluded diagonals (CSPLib prob079 instances)
  Index max_free_rows =
      0;                ///< largest residual (n - k) it takes; 0 = any. Beyond, complete() throws std::invalid_argument
  std::string summary;  ///< one line for --help
  std::span<const ParamSpec> params;  ///< its parameters (a config's engine_params), in the order shown; may be empty
  /// The engine (`self`: this entry) with the parameters of `options` (make_engine calls it).
  std::unique_ptr<Engine> (*make)(const EngineInfo& self, const EngineOptions& options) = nullptr;
  CaseCost cost{};  ///< estimated seconds per case (the default where not measured)
};

/// Every engine, in the order shown to users; codes checked on first use (check_engine_codes).
const std::vector<EngineInfo>& engine_infos();

/// Throws std::logic_error naming the engine unless the codes are unique and 0..N-1.
void check_engine_codes(std::span<const EngineInfo> infos);

/// The engine of a config without "engine" and of `nqc complete` without --engine.
inline constexpr const char* kDefaultEngine = "auto";

/// The registry's entry of `name`. Throws std::invalid_argument naming the valid engines.
const EngineInfo& engine_info(std::string_view name);

/// The registry's entry whose EngineInfo::code is `code`, or nullptr when none is.
const EngineInfo* engine_of_code(std::uint8_t code);

/// Names accepted by make_engine, in the order shown to users.
const std::vector<std::string>& engine_names();

/// The names of the engines for which `keep` holds: "a, b, c", or with `last` = " or ", "a, b or c".
std::string engine_list(bool (*keep)(const EngineInfo&), std::string_view last = ", ");

/// Creates an engine by name with its default parameters (std::invalid_argument for an unknown name).
std::unique_ptr<Engine> make_engine(std::string_view name);

}  // namespace nqc
