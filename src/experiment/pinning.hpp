// A run's pinned plan (DIR/plan.json, docs/results.md "The plan is pinned"), checked by later
// launches and the merge.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/plan.hpp"
#include "experiment/results.hpp"

namespace nqc {

/// The generation of nqc's case making: bumped whenever the same config would make other cases.
inline constexpr int kCaseGeneration = 1;

/// What a run's cases are made from.
struct PinnedPlan {
  int case_generation = kCaseGeneration;
  std::string config_hash;              ///< the run's config_hash (XXH64 of DIR/config.json)
  std::uint64_t cases = 0;              ///< the plan's total cases
  std::uint64_t shards = 0;             ///< the plan's shards
  std::string layout;                   ///< XXH64 of the shard table (ids, sizes, solution and case ranges)
  std::vector<InstanceFile> instances;  ///< an instance config's files, sizes and content hashes

  /// XXH64 of the record, 16 hex digits: `plan_hash` in plan.json and every result file.
  [[nodiscard]] std::string hash() const;
  /// The record of DIR/plan.json: the fields above (instances as {file, bytes, xxh64}), plan_hash.
  [[nodiscard]] nlohmann::json to_json() const;
};

/// The pinned plan of `plan` under a config of hash `config_hash`.
PinnedPlan pin_plan(const Plan& plan, const std::string& config_hash);

/// The text of DIR/plan.json: to_json() plus nqc_version, keys sorted, 2-space indent, final newline.
std::string plan_file_text(const PinnedPlan& pinned, const std::string& nqc_version);

/// Reads DIR/plan.json's text. Throws nqc::InputError with the reason it is not a record nqc wrote.
PinnedPlan parse_pinned_plan(const std::string& text);

/// Reads and parses DIR/plan.json (at most 256 MiB). Throws nqc::InputError (not a record nqc
/// wrote, or too large) or nqc::IoError (unreadable, missing).
PinnedPlan read_plan_file(const std::filesystem::path& dir);

/// The first difference between the plan a run started with and this launch's; "" when none.
std::string plan_change(const PinnedPlan& then, const PinnedPlan& now);

/// What every result file of a run carries: its config_hash and plan_hash.
struct RunIdentity {
  std::string config_hash;
  std::string plan_hash;
};

/// Checks a shard or partial file (its rows when read, else its row count) against the run's
/// plan. Throws nqc::InputError naming the file, the first disagreement and what to do.
void check_against_plan(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content,
                        const Plan& plan, const RunIdentity& run, bool partial);

}  // namespace nqc
