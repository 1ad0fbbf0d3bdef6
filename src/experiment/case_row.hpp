// One row of a result file: everything recorded about one case, declared once in
// NQC_CASE_COLUMNS (result_schema.hpp makes the schema of it).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nqc {

/// Layout version of result files: nqc writes and reads this one only ("2.3").
inline constexpr int kSchemaMajor = 2;
/// Changed with any change of the layout (a column, an attribute, a type).
inline constexpr int kSchemaMinor = 3;
/// "MAJOR.MINOR", as the schema_version attribute holds it.
inline std::string schema_version() { return std::to_string(kSchemaMajor) + "." + std::to_string(kSchemaMinor); }

/// The `instance` column: a path, NUL-padded.
using InstancePath = std::array<char, 256>;

/// How a column is stored: its HDF5 type in memory and on disk (result_schema.cpp).
enum class ColumnKind : std::uint8_t {
  u64,          ///< uint64
  i64,          ///< int64
  u32,          ///< uint32
  i32,          ///< int32
  f64,          ///< IEEE double
  outcome,      ///< int8 enum of nqc::Outcome's names
  flag,         ///< uint8 enum {FALSE 0, TRUE 1}: h5py and numpy read it as bool
  engine,       ///< uint8 enum of the engine registry's names (code = EngineInfo::code, stable)
  stop_reason,  ///< uint8 enum of nqc::StopReason's names
  text,         ///< fixed-length NUL-padded string (the field's bytes)
  origin,       ///< uint8 enum of nqc::Origin's names
};

/// Where a case's composition comes from: X(NAME, CODE, config key, parameter). CODE is stored:
/// never renumber or reuse one. Only `derived` cases are known to be completable.
#define NQC_ORIGINS(X)                                                                 \
  X(derived, 0, "sizes", "solution")                      /* from a random solution */ \
  X(instance, 1, "instances", "diags")                    /* a file */                 \
  X(random, 2, "random_compositions", "free_rows")        /* CSPLib's placed queens */ \
  X(excluded_diagonals, 3, "excluded_diagonals", "diags") /* CSPLib's generator */     \
  X(canonical, 4, "canonical_compositions", "k")          /* each up to symmetry */

enum class Origin : std::uint8_t {
#define NQC_ORIGIN_VALUE(name, code, key, param) name = code,
  NQC_ORIGINS(NQC_ORIGIN_VALUE)
#undef NQC_ORIGIN_VALUE
};

/// The names of Origin's values, by code.
inline constexpr std::string_view kOriginNames[] = {
#define NQC_ORIGIN_NAME(name, code, key, param) #name,
    NQC_ORIGINS(NQC_ORIGIN_NAME)
#undef NQC_ORIGIN_NAME
};

/// The config key of each origin's cases, by code.
inline constexpr std::string_view kOriginKeys[] = {
#define NQC_ORIGIN_KEY(name, code, key, param) key,
    NQC_ORIGINS(NQC_ORIGIN_KEY)
#undef NQC_ORIGIN_KEY
};

/// The parameter of each origin, by code: "free_rows", "diags", "k", ...
inline constexpr std::string_view kOriginParams[] = {
#define NQC_ORIGIN_PARAM(name, code, key, param) param,
    NQC_ORIGINS(NQC_ORIGIN_PARAM)
#undef NQC_ORIGIN_PARAM
};

/// The name of `origin`'s parameter (kOriginParams).
inline std::string_view param_name(Origin origin) { return kOriginParams[static_cast<int>(origin)]; }

#define NQC_ORIGIN_CODE_CHECK(name, code, key, param) \
  static_assert(kOriginNames[code] == #name, "NQC_ORIGINS: codes must be 0, 1, 2, ... in order");
NQC_ORIGINS(NQC_ORIGIN_CODE_CHECK)
#undef NQC_ORIGIN_CODE_CHECK

// The columns of the `cases` dataset, widest first (no padding before `instance`):
//   X(name, C++ type, ColumnKind, description). Adding one: a new kSchemaMinor, the tests, and
// analysis/result_schema.json regenerated (`nqc info --columns --json`).
#define NQC_CASE_COLUMNS(X)                                                                                            \
  X(case_id, std::uint64_t, u64, "position of the case in the plan (0-based)")                                         \
  X(shard_id, std::uint64_t, u64, "the shard that holds the case (0-based)")                                           \
  X(n, std::int64_t, i64, "board size")                                                                                \
  X(k, std::int64_t, i64, "queens in the composition")                                                                 \
  X(solution_id, std::uint64_t, u64,                                                                                   \
    "by origin: derived: the solution's index in the sample for n; instance: the file's index; random: the free rows " \
    "f; excluded_diagonals: the diagonals d excluded; canonical: k")                                                   \
  X(composition_id, std::uint64_t, u64,                                                                                \
    "by origin: derived: the composition's index among the solution's; instance: a .param case's excluded diagonals "  \
    "(0 for composition files); random, excluded_diagonals: the sample's index; canonical: its index in the "          \
    "enumeration of the canonical compositions of n and k")                                                            \
  X(seed, std::uint64_t, u64, "the case's seed: derive_seed(experiment seed, n, solution_id, composition_id)")         \
  X(wall_s, double, f64, "wall-clock seconds of the engine call only")                                                 \
  X(cpu_s, double, f64, "thread CPU seconds of the engine call only")                                                  \
  X(start_s, double, f64,                                                                                              \
    "seconds from the start of the launch's shards (a barrier of its ranks) to the engine call: with rank and "        \
    "wall_s, "                                                                                                         \
    "the run's timeline")                                                                                              \
  X(backtracks, std::uint64_t, u64, "retracted placements, or returns to a base level (the engine's own count)")       \
  X(nodes, std::uint64_t, u64, "placements tried, all phases")                                                         \
  X(placed_random, std::uint64_t, u64, "queens placed by random phases (kept in the solution)")                        \
  X(placed_search, std::uint64_t, u64, "queens placed by the final (search) phase")                                    \
  X(restarts, std::uint64_t, u64, "random fills thrown away and redone")                                               \
  X(rank, std::int32_t, i32, "the MPI rank that ran the case")                                                         \
  X(launch, std::uint32_t, u32, "the launch that ran the case: its id in the launches table (0 = unknown)")            \
  X(orbit_size, std::uint32_t, u32,                                                                                    \
    "canonical cases: the compositions the case stands for, its orbit under the board's 8 symmetries (1, 2, 4 or 8); " \
    "others 0")                                                                                                        \
  X(outcome, std::int8_t, outcome,                                                                                     \
    "the answer; infeasible: proved to have no completion; gave_up: stopped by a limit")                               \
  X(false_negative, std::uint8_t, flag, "true when a completable (derived) composition was not solved")                \
  X(engine, std::uint8_t, engine, "the engine that ran the case")                                                      \
  X(limit, std::uint8_t, stop_reason, "for gave_up: the limit that stopped the engine; else none")                     \
  X(origin, std::uint8_t, origin,                                                                                      \
    "where the composition comes from (derived cases alone are known to be completable; docs/configs.md)")             \
  X(instance, InstancePath, text,                                                                                      \
    "instance runs: the composition or CSPLib file's path, NUL-padded (left out of generated runs' files: empty)")

/// The columns that say when and where a case ran: two runs of one config agree in the others.
inline constexpr std::array<std::string_view, 5> kRunDependentColumns = {"wall_s", "cpu_s", "start_s", "rank",
                                                                         "launch"};

/// One case as stored in the `cases` dataset (NQC_CASE_COLUMNS).
struct CaseRow {
#define NQC_CASE_ROW_MEMBER(name, type, kind, doc) type name{};
  NQC_CASE_COLUMNS(NQC_CASE_ROW_MEMBER)
#undef NQC_CASE_ROW_MEMBER
};

// Shard files store the rows up to `instance` as they are in memory: no padding may hide there.
#define NQC_CASE_ROW_SIZE(name, type, kind, doc) +sizeof(type)
static_assert(offsetof(CaseRow, instance) + sizeof(CaseRow::instance) == 0 NQC_CASE_COLUMNS(NQC_CASE_ROW_SIZE),
              "CaseRow has padding between columns: order NQC_CASE_COLUMNS widest first");
#undef NQC_CASE_ROW_SIZE

/// Longest instance path a row can hold (bytes).
inline constexpr std::size_t kMaxInstancePath = sizeof(CaseRow::instance) - 1;

/// The composition of a false-negative or gave_up case, kept so it can be studied and rerun.
struct FailureRecord {
  std::uint64_t case_id = 0;
  std::vector<std::int32_t> q;  ///< the composition, Q(i) format
};

/// Everything one shard produced.
struct ShardData {
  std::uint64_t shard_id = 0;
  std::vector<CaseRow> rows;
  std::vector<FailureRecord> failures;
};

/// Copies `s` into a NUL-padded fixed-size field (truncating).
template <std::size_t N>
std::array<char, N> fixed_string(const std::string& s) {
  std::array<char, N> out{};
  for (std::size_t i = 0; i < s.size() && i + 1 < N; ++i) out[i] = s[i];
  return out;
}

}  // namespace nqc
