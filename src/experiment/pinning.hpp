// A run's pinned plan and the checks of its result files against it (docs/results.md, "Damaged files
// and changed inputs"). What a run's cases are made from (the config, the plan's shard table,
// the instance files' list and contents, the case generation of this nqc) is recorded in
// DIR/plan.json at its first launch; every later launch and the merge check that it is
// unchanged, and that each shard file holds exactly the rows the plan gives its shard.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/plan.hpp"
#include "experiment/results.hpp"

namespace nqc {

/// The generation of nqc's case making: bumped whenever this nqc would make other cases
/// from the same config (the sampling of solutions, the derivation of compositions, the
/// seeds, how an instance file becomes a case). A run is not continued, nor merged, by an nqc
/// of another generation: its shards would mix cases of two kinds under one case id.
inline constexpr int kCaseGeneration = 1;

/// What a run's cases are made from.
struct PinnedPlan {
  int case_generation = kCaseGeneration;
  std::string config_hash;              ///< the run's config_hash (XXH64 of DIR/config.json)
  std::uint64_t cases = 0;              ///< the plan's total cases
  std::uint64_t shards = 0;             ///< the plan's shards
  std::string layout;                   ///< XXH64 of the shard table (ids, sizes, solution and case ranges)
  std::vector<InstanceFile> instances;  ///< an instance config's files, sizes and content hashes

  /// The plan's fingerprint (XXH64 of the record without it, 16 hex digits): stored as
  /// `plan_hash` in plan.json and in every result file.
  [[nodiscard]] std::string hash() const;
  /// The record as DIR/plan.json holds it: the fields above (instances as a list of {file,
  /// bytes, xxh64}) and plan_hash.
  [[nodiscard]] nlohmann::json to_json() const;
};

/// The pinned plan of `plan` under a config of hash `config_hash`.
PinnedPlan pin_plan(const Plan& plan, const std::string& config_hash);

/// The text of DIR/plan.json for `pinned`, as written by nqc `nqc_version`: to_json() plus
/// nqc_version, keys sorted, 2-space indent, a final newline (the one form parse_pinned_plan
/// reads).
std::string plan_file_text(const PinnedPlan& pinned, const std::string& nqc_version);

/// Reads DIR/plan.json's text. Throws nqc::InputError with the reason it cannot be a plan
/// record nqc wrote ("empty", "not valid JSON at byte N", "not as nqc writes it" (not byte
/// for byte plan_file_text's form), "no 'layout'", "unexpected key 'X'", "its plan_hash does
/// not match its content").
PinnedPlan parse_pinned_plan(const std::string& text);

/// The first difference between the plan a run started with and this launch's, as one
/// clause naming what changed ("the instance file /d/a0.txt was added (6 files then, 7 now)",
/// "/d/c3.txt changed (86 bytes, xxh64 ... then; 90 bytes, xxh64 ... now)", "this nqc makes
/// cases of generation 2, the run started with generation 1", ...); "" when they agree.
std::string plan_change(const PinnedPlan& then, const PinnedPlan& now);

/// What every result file of a run carries: its config_hash and plan_hash.
struct RunIdentity {
  std::string config_hash;
  std::string plan_hash;
};

/// Checks a shard or partial file of a run against its plan, from what read_result_file read
/// (its attributes always; with the rows when `content.rows` were read, else its row count).
/// Throws nqc::InputError naming the file and the first disagreement, with what to do:
/// another config's or plan's file ("FILE: belongs to another config (config_hash X, this
/// config Y); move it out of DIR/shards"), a shard outside the plan, a shard_id attribute that
/// is not its name's, rows that are not the plan's ("FILE: holds 5 rows, shard 3 of the plan
/// has 10 cases: ... delete it and run the config again with --resume"). A partial file may
/// hold fewer rows than its shard, never as many. Files of schema 1.0 and 1.1 have no
/// plan_hash: theirs is not checked.
void check_against_plan(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content,
                        const Plan& plan, const RunIdentity& run, bool partial);

}  // namespace nqc
