#include "runner/results_dir.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "system/durable.hpp"
#include "system/errors.hpp"
#include "nqc/version.hpp"
#include "formats/hash.hpp"
#include "formats/composition_file.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace fs = std::filesystem;
namespace {

// A file of DIR written atomically under a per-process temporary name (parts of a job array
// may prepare DIR at once). Throws nqc::IoError.
void write_small_file(const fs::path& target, const std::string& text) {
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  if (const int error = write_whole_file(tmp, text); error != 0)
    throw IoError(target.parent_path().string() + ": cannot write to the results directory: " + std::strerror(error));
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) throw IoError(target.string() + ": cannot write: " + ec.message());
}

// Why `text` (DIR/config.json) is not a config nqc wrote, or "" when it reads as one.
std::string config_file_problem(const std::string& text, const fs::path& file) {
  if (text.empty()) return "empty";
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return "not valid JSON at byte " + std::to_string(e.byte);
  } catch (const nlohmann::json::exception&) {
    return "not valid JSON";
  }
  if (!j.is_object() || j.dump(2) + "\n" != text) return "not as nqc writes it";
  try {
    (void)parse_config(j, file.string());
  } catch (const InputError& e) {
    return std::string("not a valid config: ") + e.what();
  }
  return "";
}

std::string attr(const ResultFile& content, const char* key) {
  const auto it = content.attrs.find(key);
  return it == content.attrs.end() ? std::string() : it->second;
}

// The shard and partial files as read at launch.
using Contents = std::map<fs::path, ResultFile>;

std::string count_files(const Contents& c) {
  return std::to_string(c.size()) + " result file" + (c.size() == 1 ? "" : "s");
}

// DIR/config.json against this config and the result files beside it: throws nqc::InputError
// when the run may not go on. One that differs beside this config's result files is damaged.
void check_config_file(const fs::path& dir, const std::string& config_text, const std::string& config_hash,
                       const Contents& contents, bool repair) {
  const fs::path stored = dir / "config.json";
  std::error_code ec;
  if (!fs::exists(stored, ec)) return;
  const std::string text = text::read_small_file(stored, 16u << 20, "config.json");
  if (text == config_text) return;
  std::set<std::string> hashes;
  for (const auto& [file, content] : contents) hashes.insert(attr(content, "config_hash"));
  const std::string problem = config_file_problem(text, stored);
  const std::string count = count_files(contents);
  if (hashes.empty() && !fs::exists(dir / "results.h5", ec)) {
    // Nothing to lose: --repair makes the directory this config's.
    if (repair) return;
    throw InputError(
        stored.string() + ": " +
        (problem.empty() ? "another config's (it differs from this one)" : "damaged (" + problem + ")") +
        ", and the directory holds no result files yet: choose another output directory, or run again with --repair "
        "to rewrite it from this config");
  }
  if ((hashes.empty() && problem.empty()) || hashes == std::set<std::string>{hex64(xxh64(text))})
    throw InputError(dir.string() + ": holds results of another config (" + stored.string() +
                     " differs from this one); choose another output directory");
  const std::string why = problem.empty() ? "it is not the config its " + count + " were written with" : problem;
  if (hashes == std::set<std::string>{config_hash}) {
    if (!repair)
      throw InputError(stored.string() + ": damaged (" + why + "); the " + count +
                       " there carry this config's config_hash " + config_hash +
                       ": run again with --resume --repair to rewrite it from this config");
    spdlog::warn("{}: damaged ({}); rewritten from this config, whose config_hash the {} there carry", stored.string(),
                 why, count);
    return;
  }
  for (const std::string& h : hashes)
    if (h != config_hash)
      throw InputError(stored.string() + ": damaged or another config's (" + why +
                       "), and result files there belong to another config (config_hash " + text::escaped(h) +
                       ", this config " + config_hash + "); choose another output directory");
}

// DIR/plan.json against this launch's plan and the result files: throws nqc::InputError when
// the run may not go on; sets `rewrite` when plan.json must be (re)written.
void check_plan_file(const fs::path& dir, const PinnedPlan& pinned, const Contents& contents, bool repair,
                     bool& rewrite) {
  const fs::path file = dir / "plan.json";
  const std::string plan_hash = pinned.hash();
  std::error_code ec;
  rewrite = true;
  if (!fs::exists(file, ec)) return;  // the result files' plan_hash is checked against this plan
  const std::string count = count_files(contents);
  PinnedPlan then;
  try {
    then = read_plan_file(dir);
  } catch (const InputError& e) {
    for (const auto& [f, content] : contents)
      if (content.attrs.contains("plan_hash") && attr(content, "plan_hash") != plan_hash)
        throw InputError(file.string() + ": damaged (" + e.what() + "), and " + f.string() +
                         " was written for another plan (plan_hash " + text::escaped(attr(content, "plan_hash")) +
                         ", this launch's " + plan_hash +
                         "): the instance files or nqc changed; choose another output directory");
    const std::string proof = contents.empty() ? "the directory holds no result files yet"
                                               : "the " + count + " there agree with this launch's plan";
    if (!repair)
      throw InputError(file.string() + ": damaged (" + e.what() + "); " + proof +
                       ": run again with --resume --repair to rewrite it from this launch's plan");
    spdlog::warn("{}: damaged ({}); rewritten from this launch's plan ({})", file.string(), e.what(), proof);
    return;
  }
  rewrite = then.hash() != plan_hash;
  const std::string change = plan_change(then, pinned);
  if (change.empty()) return;
  if (contents.empty()) {
    spdlog::info("{}: {} before any case finished: the plan is pinned again", dir.string(), change);
    return;
  }
  throw InputError(dir.string() + ": " + change + " since the run started; its " + count +
                   " hold the cases of the plan pinned in " + file.string() +
                   ": restore what changed, or run into another output directory");
}

// DIR/results.h5, when there, must be this config's whole merged run of this plan, read to its
// last row before anything in DIR changes. Throws nqc::InputError.
void check_results_file(const fs::path& dir, const PinnedPlan& pinned, const Plan& plan) {
  const fs::path file = dir / "results.h5";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return;
  if (!fs::is_regular_file(fs::symlink_status(file, ec)))
    throw InputError(file.string() +
                     ": not a file nqc wrote (a directory, link or device): choose another output directory");
  const ResultFile merged = read_result_file(file, kRowCount | kFailures | kLaunches);
  read_rows_in_batches(file, std::size_t{1} << 16, [](const std::vector<CaseRow>&) {});
  const std::string hash = attr(merged, "config_hash");
  if (hash != pinned.config_hash)
    throw InputError(dir.string() + ": holds results of another config (" + file.string() + ", config_hash " +
                     text::escaped(hash) + ", this config " + pinned.config_hash +
                     "); choose another output directory");
  if (const std::string plan_hash = attr(merged, "plan_hash"); !plan_hash.empty() && plan_hash != pinned.hash())
    throw InputError(file.string() + ": written for another plan (plan_hash " + text::escaped(plan_hash) +
                     ", this launch's " + pinned.hash() +
                     "): the instance files or nqc changed; choose another output directory");
  if (merged.row_count != plan.total_cases)
    throw InputError(file.string() + ": holds " + std::to_string(merged.row_count) + " cases, the plan has " +
                     std::to_string(plan.total_cases) + ": delete it and rebuild it from the shard files: nqc run " +
                     (dir / "config.json").string() + " -o " + dir.string() + " --resume");
}

}  // namespace

void remove_temporaries(const fs::path& dir) {
  static const std::regex shard_tmp(R"((shard|partial)-[0-9]{6,}\.h5\.(.*\.)?tmp)");
  static const std::regex merged_tmp(R"(results\.h5\.(.*\.)?tmp)");
  std::error_code ec;
  for (const auto& [folder, pattern] : {std::pair{dir / "shards", &shard_tmp}, std::pair{dir, &merged_tmp}})
    for (const auto& entry : fs::directory_iterator(folder, ec))
      if (entry.is_regular_file(ec) && std::regex_match(entry.path().filename().string(), *pattern)) {
        std::error_code ignored;
        fs::remove(entry.path(), ignored);
      }
}

void remove_run_for_force(const fs::path& dir, const std::string& config_text, const std::string& config_hash) {
  std::error_code ec;
  const auto refuse = [&](const std::string& what) {
    throw InputError(what + "; --force starts over this config's run only: choose another output directory");
  };
  // Every check first, every removal after: a refusal removes nothing.
  const fs::path stored = dir / "config.json";
  if (fs::exists(fs::symlink_status(stored, ec))) {
    const std::string text = text::read_small_file(stored, 16u << 20, "config.json");
    if (text != config_text) {
      const std::string problem = config_file_problem(text, stored);
      refuse(problem.empty()
                 ? dir.string() + ": holds the run of another config (" + stored.string() + " differs from this one)"
                 : stored.string() + ": damaged (" + problem + "): whose run the directory holds cannot be told");
    }
  }
  const fs::path shards = dir / "shards";
  if (fs::is_symlink(fs::symlink_status(shards, ec)))
    refuse(shards.string() +
           ": a symbolic link (nqc writes a directory there): its files are not this run's to remove");
  std::vector<fs::path> files;
  if (fs::exists(fs::symlink_status(dir / "results.h5", ec))) files.push_back(dir / "results.h5");
  static const std::regex own(R"((shard|partial)-[0-9]{6,}\.h5(\..*\.tmp|\.tmp(\.[0-9]+)?)?)");
  if (fs::is_directory(fs::symlink_status(shards, ec)))
    for (const auto& entry : fs::directory_iterator(shards, ec))
      if (std::regex_match(entry.path().filename().string(), own)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const fs::path& file : files) {
    if (!fs::is_regular_file(fs::symlink_status(file, ec)))
      refuse(file.string() + ": not a file nqc wrote (a directory, link or device)");
    if (file.extension() != ".h5") continue;  // a .tmp of nqc's: never a whole file
    std::string hash;
    try {
      hash = attr(read_result_file(file, kAttributes), "config_hash");
    } catch (const Error& e) {  // h5::Error too: not a result file, or a damaged one
      refuse(file.string() + ": cannot be read as this config's result file (" + e.what() +
             "); remove it yourself if it is");
    }
    if (hash != config_hash)
      refuse(file.string() + ": belongs to another config (config_hash " + text::escaped(hash) + ", this config " +
             config_hash + ")");
  }
  const std::size_t result_files = files.size();
  files.insert(files.end(), {dir / "plan.json", dir / "launches"});
  for (const fs::path& file : files) {
    fs::remove_all(file, ec);
    if (ec) throw IoError(file.string() + ": cannot remove (--force): " + ec.message());
  }
  fs::remove(shards, ec);  // only when empty: a user's files stay
  if (result_files > 0)
    spdlog::info("{}: --force removed this config's run ({} result files)", dir.string(), result_files);
}

DirectoryState prepare_directory(const fs::path& dir, const std::string& config_text, const PinnedPlan& pinned,
                                 const Plan& plan, bool resume, bool repair, bool dry,
                                 std::vector<std::uint64_t>& done) {
  std::error_code ec;
  done = done_shards(dir);
  const std::vector<std::uint64_t> partials = partial_shards(dir);
  Contents contents;
  for (const std::uint64_t id : done) contents[shard_path(dir, id)] = read_result_file(shard_path(dir, id), kRowCount);
  for (const std::uint64_t id : partials)
    contents[partial_path(dir, id)] = read_result_file(partial_path(dir, id), kRows);
  bool write_plan = false;
  check_config_file(dir, config_text, pinned.config_hash, contents, repair);
  check_results_file(dir, pinned, plan);
  const bool finished = done.size() == plan.shards.size() && fs::exists(dir / "results.h5", ec);
  if (!done.empty() && !resume && !finished)
    throw InputError(
        dir.string() +
        ": already holds results of this config; pass --resume to continue the run, or --force to start it over");
  check_plan_file(dir, pinned, contents, repair, write_plan);
  const RunIdentity run{pinned.config_hash, pinned.hash()};
  for (const std::uint64_t id : done)
    check_against_plan(shard_path(dir, id), id, contents[shard_path(dir, id)], plan, run, false);
  for (const std::uint64_t id : partials) {
    const fs::path file = partial_path(dir, id);
    if (!std::binary_search(done.begin(), done.end(), id)) {
      check_against_plan(file, id, contents[file], plan, run, true);
      continue;
    }
    // A partial file of a done shard: left by a crash between the two writes; not needed.
    if (attr(contents[file], "config_hash") != run.config_hash)
      throw InputError(file.string() + ": belongs to another config (config_hash " +
                       text::escaped(attr(contents[file], "config_hash")) + ", this config " + run.config_hash +
                       "); move it out of " + (dir / "shards").string());
    if (!dry && !finished) fs::remove(file, ec);
  }
  const DirectoryState state = finished ? DirectoryState::finished : DirectoryState::ready;
  // A finished run is left as it is (--repair still rewrites what it was asked to).
  if (dry || (finished && !repair)) return state;
  write_small_file(dir / "config.json", config_text);
  if (write_plan) write_small_file(dir / "plan.json", plan_file_text(pinned, NQC_VERSION));
  return state;
}

void check_plan_unchanged(const fs::path& dir, const ExperimentConfig& config, const PinnedPlan& pinned) {
  PinnedPlan now = pinned;
  if (!config.instances.files.empty()) now.instances = instance_files_now(config);
  if (const std::string change = plan_change(pinned, now); !change.empty())
    throw InputError(dir.string() + ": " + change +
                     " during the run; results.h5 is not written: restore it and run again with --resume");
  PinnedPlan stored;
  try {
    stored = read_plan_file(dir);
  } catch (const InputError& e) {
    throw InputError((dir / "plan.json").string() + ": damaged (" + e.what() +
                     "); results.h5 is not written: run again with --resume --repair");
  }
  if (stored.hash() != pinned.hash())
    throw InputError((dir / "plan.json").string() + ": changed during the run (plan_hash " + stored.hash() +
                     ", this run's " + pinned.hash() + "); results.h5 is not written");
}

ShardData load_partial(const fs::path& dir, const Shard& shard) {
  const fs::path file = partial_path(dir, shard.id);
  std::error_code ec;
  if (!fs::exists(file, ec)) return {};
  std::string problem;
  try {
    ShardData part = read_partial(dir, shard.id);
    if (part.rows.size() >= shard.case_count())
      problem =
          std::to_string(part.rows.size()) + " rows for a shard of " + std::to_string(shard.case_count()) + " cases";
    for (std::size_t i = 0; problem.empty() && i < part.rows.size(); ++i)
      if (part.rows[i].case_id != shard.first_case + i)
        problem = "row " + std::to_string(i) + " has case id " + std::to_string(part.rows[i].case_id) + ", expected " +
                  std::to_string(shard.first_case + i);
    if (problem.empty()) {
      spdlog::info("shard {}: continuing after the {} cases in {}", shard.id, part.rows.size(), file.string());
      return part;
    }
  } catch (const Error& e) {  // damaged (InputError) or unreadable (IoError): the same rows come again
    problem = e.what();
  }
  spdlog::warn("{}: set aside ({}); shard {} runs from its start", file.string(), problem, shard.id);
  fs::remove(file, ec);
  return {};
}

}  // namespace nqc
