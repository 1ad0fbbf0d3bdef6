// One row of a result file: everything recorded about one case.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nqc {

/// Layout version of result files. Readers refuse another major version.
inline constexpr int kSchemaMajor = 1;
/// 1.1 added `instance`; 1.2 checksums (HDF5 newest format, Fletcher32), plan_hash,
/// case_generation; 1.3 `launch` and the `launches` table, shard files uncompressed in the
/// layout of CaseRow, `instance` left out of generated runs' files (it reads as empty).
inline constexpr int kSchemaMinor = 3;

/// One case as stored in the `cases` dataset (an HDF5 compound type with these field
/// names). Times in seconds; ids 0-based; `outcome` is nqc::Outcome as int8
/// (0 solved, 1 infeasible, 2 gave_up), stored as an HDF5 enum. The fields are ordered
/// widest first, so the struct has no padding before `instance` and a shard file's rows are
/// a prefix of it (results.cpp writes them without conversion).
struct CaseRow {
  std::uint64_t case_id = 0;         ///< position of the case in the plan
  std::uint64_t shard_id = 0;        ///< shard that holds the case
  std::int64_t n = 0;                ///< board size
  std::int64_t k = 0;                ///< queens in the composition
  std::uint64_t solution_id = 0;     ///< index of the solution in the sample for this n
  std::uint64_t composition_id = 0;  ///< index of the composition derived from that solution
  std::uint64_t seed = 0;            ///< derive_seed(experiment seed, n, solution id, composition id)
  double wall_s = 0.0;               ///< wall-clock seconds of the engine call only
  double cpu_s = 0.0;                ///< thread CPU seconds of the engine call only
  std::uint64_t backtracks = 0;
  std::uint64_t nodes = 0;
  std::uint64_t placed_random = 0;   ///< queens placed by random phases
  std::uint64_t placed_search = 0;   ///< queens placed by the search phase
  std::uint64_t restarts = 0;
  std::int32_t rank = 0;             ///< MPI rank that ran the case
  std::uint32_t launch = 0;          ///< the launch that ran the case (its id in the `launches` table; schema 1.3, 0 = unknown)
  std::int8_t outcome = 0;           ///< nqc::Outcome
  std::uint8_t false_negative = 0;   ///< 1 when a completable composition was not solved
  std::array<char, 24> engine{};     ///< engine name, NUL-padded
  std::array<char, 24> limit{};      ///< for gave_up: the limit that stopped it, NUL-padded
  std::array<char, 256> instance{};  ///< instance configs: the file's path, NUL-padded; else empty (schema 1.1)
};

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
