// One row of a result file: everything recorded about one case. The columns are declared
// once, in NQC_CASE_COLUMNS below; CaseRow, the HDF5 types of the writer and the reader
// (results.cpp), `nqc info --columns` and analysis/result_schema.json (which the Python
// loader reads) all follow from it (result_schema.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace nqc {

/// Layout version of result files. This nqc reads majors kSchemaOldestMajor..kSchemaMajor.
inline constexpr int kSchemaMajor = 2;
/// 1.1 added `instance`; 1.2 checksums (HDF5 newest format, Fletcher32), plan_hash,
/// case_generation; 1.3 `launch` and the `launches` table, shard files uncompressed in the
/// layout of CaseRow, `instance` left out of generated runs' files (it reads as empty);
/// 2.0 stores `false_negative` as an HDF5 bool enum (FALSE, TRUE), `engine` and `limit` as
/// enums of their names instead of strings, and integer root attributes as integers; 2.1 text
/// root attributes as variable-length strings (h5py: str) under the checksum attribute
/// text_checksum (formats/hdf5_text.hpp; fixed-length strings before); 2.2 `start_s`.
inline constexpr int kSchemaMinor = 2;
/// The oldest major version this nqc reads (1.x: engine and limit as 24-byte strings).
inline constexpr int kSchemaOldestMajor = 1;

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
};

// The columns of the `cases` dataset, in CaseRow's order (widest first, so the struct has no
// padding before `instance` and a shard file's rows are a prefix of it):
//   X(name, C++ type, ColumnKind, schema version that added it, description)
// Adding a column: one row here (a new minor version, or a major one if readers must change),
// kSchemaMinor above, the tests, and analysis/result_schema.json regenerated
// (`nqc info --columns --json`; test `result_schema_json` compares them).
#define NQC_CASE_COLUMNS(X)                                                                                            \
  X(case_id, std::uint64_t, u64, "1.0", "position of the case in the plan (0-based)")                                  \
  X(shard_id, std::uint64_t, u64, "1.0", "the shard that holds the case (0-based)")                                    \
  X(n, std::int64_t, i64, "1.0", "board size")                                                                         \
  X(k, std::int64_t, i64, "1.0", "queens in the composition")                                                          \
  X(solution_id, std::uint64_t, u64, "1.0",                                                                            \
    "generated runs: index of the solution in the sample for n; instance runs: the file's index (0-based)")            \
  X(composition_id, std::uint64_t, u64, "1.0",                                                                         \
    "generated runs: index of the composition derived from that solution; instance runs: the excluded diagonals of a " \
    "CSPLib .param case (0 for composition files)")                                                                    \
  X(seed, std::uint64_t, u64, "1.0", "the case's seed: derive_seed(experiment seed, n, solution_id, composition_id)")  \
  X(wall_s, double, f64, "1.0", "wall-clock seconds of the engine call only")                                          \
  X(cpu_s, double, f64, "1.0", "thread CPU seconds of the engine call only")                                           \
  X(start_s, double, f64, "2.2",                                                                                       \
    "seconds from the start of the launch's shards (a barrier of its ranks) to the engine call: with rank and "        \
    "wall_s, "                                                                                                         \
    "the run's timeline")                                                                                              \
  X(backtracks, std::uint64_t, u64, "1.0",                                                                             \
    "retracted placements, or returns to a base level (the engine's own count)")                                       \
  X(nodes, std::uint64_t, u64, "1.0", "placements tried, all phases")                                                  \
  X(placed_random, std::uint64_t, u64, "1.0", "queens placed by random phases (kept in the solution)")                 \
  X(placed_search, std::uint64_t, u64, "1.0", "queens placed by the final (search) phase")                             \
  X(restarts, std::uint64_t, u64, "1.0", "random fills thrown away and redone")                                        \
  X(rank, std::int32_t, i32, "1.0", "the MPI rank that ran the case")                                                  \
  X(launch, std::uint32_t, u32, "1.3", "the launch that ran the case: its id in the launches table (0 = unknown)")     \
  X(outcome, std::int8_t, outcome, "1.0",                                                                              \
    "the answer; infeasible: proved to have no completion; gave_up: stopped by a limit")                               \
  X(false_negative, std::uint8_t, flag, "1.0", "true when a completable (derived) composition was not solved")         \
  X(engine, std::uint8_t, engine, "1.0", "the engine that ran the case")                                               \
  X(limit, std::uint8_t, stop_reason, "1.0", "for gave_up: the limit that stopped the engine; else none")              \
  X(instance, InstancePath, text, "1.1",                                                                               \
    "instance runs: the composition or CSPLib file's path, NUL-padded (left out of generated runs' files: empty)")

/// The columns that say when and where a case ran, not what it is: two runs of one config
/// agree in every other column, on any number of ranks and hosts (the determinism tests
/// compare those; result_schema.json marks these "run_dependent").
inline constexpr std::array<std::string_view, 5> kRunDependentColumns = {"wall_s", "cpu_s", "start_s", "rank",
                                                                         "launch"};

/// One case as stored in the `cases` dataset (an HDF5 compound type with these member names;
/// see NQC_CASE_COLUMNS for each). Times in seconds; ids 0-based; `outcome` is nqc::Outcome's
/// value, `engine` the engine's EngineInfo::code, `limit` nqc::StopReason's value.
struct CaseRow {
#define NQC_CASE_ROW_MEMBER(name, type, kind, since, doc) type name{};
  NQC_CASE_COLUMNS(NQC_CASE_ROW_MEMBER)
#undef NQC_CASE_ROW_MEMBER
};

// Shard files store the rows up to `instance` as they are in memory: no padding may hide there.
#define NQC_CASE_ROW_SIZE(name, type, kind, since, doc) +sizeof(type)
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
