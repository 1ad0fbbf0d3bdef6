// The root attributes of result files, declared once in NQC_ROOT_ATTRIBUTES.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace nqc {

struct ExperimentConfig;
struct PinnedPlan;
struct Launch;

/// Which result files carry a root attribute.
enum class AttributeFiles : std::uint8_t {
  all,     ///< shard, partial and merged files
  shard,   ///< shard and partial files
  merged,  ///< results.h5
};

//   X(name, C++ type, files, description). Adding one: a new kSchemaMinor, the tests, and
// analysis/result_schema.json regenerated.
#define NQC_ROOT_ATTRIBUTES(X)                                                                         \
  X(schema_version, std::string, all, "the layout version, \"MAJOR.MINOR\" (set by the writer)")       \
  X(nqc_version, std::string, all, "the nqc that wrote the file")                                      \
  X(git_revision, std::string, all, "its git revision (\"-dirty\" when built from edited files)")      \
  X(config, std::string, all, "the resolved experiment config (JSON)")                                 \
  X(config_hash, std::string, all, "hash of the config's case-defining keys")                          \
  X(plan_hash, std::string, all, "hash of the plan (shards and their cases)")                          \
  X(case_generation, std::int64_t, all, "version of the rules that derive cases from seeds")           \
  X(start_utc, std::string, all, "start of the launch (shard files) or of the first launch, ISO 8601") \
  X(end_utc, std::string, all, "when the file was written, ISO 8601")                                  \
  X(hostname, std::string, shard, "the host of the rank that wrote the file")                          \
  X(world_size, std::int64_t, shard, "ranks of the launch that wrote the file")                        \
  X(rank, std::int64_t, shard, "the rank that wrote the file")                                         \
  X(launch, std::int64_t, shard, "the launch that wrote the file (its id)")                            \
  X(shard_id, std::int64_t, shard, "the shard the file holds (set by the writer)")                     \
  X(launches, std::int64_t, merged, "rows of the launches table")

/// The root attributes a result file is written with (schema_version, shard_id: by the writer).
struct RootAttributes {
#define NQC_ROOT_ATTRIBUTE_MEMBER(name, type, files, doc) type name{};
  NQC_ROOT_ATTRIBUTES(NQC_ROOT_ATTRIBUTE_MEMBER)
#undef NQC_ROOT_ATTRIBUTE_MEMBER
};

/// The attributes of a shard or partial file written by `rank` on this host (end_utc left out).
RootAttributes shard_attributes(const ExperimentConfig& config, const PinnedPlan& pinned, const Launch& launch,
                                int world_size, int rank);

/// The attributes of results.h5 merged by `launch` (start_utc: the first launch's).
RootAttributes merged_attributes(const ExperimentConfig& config, const PinnedPlan& pinned, const Launch& launch,
                                 const std::string& start_utc, std::size_t launches);

}  // namespace nqc
