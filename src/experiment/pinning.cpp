#include "experiment/pinning.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "system/errors.hpp"
#include "formats/hash.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

using nlohmann::json;

// The shard table (and an instance config's cases) as text: what case ids mean.
std::string layout_hash(const Plan& plan) {
  std::string table;
  for (const Shard& s : plan.shards) {
    for (const std::uint64_t v :
         {s.id, static_cast<std::uint64_t>(s.n), s.first_solution, s.solution_count, s.compositions_per_solution,
          s.first_composition, s.composition_count, s.first_case, static_cast<std::uint64_t>(s.origin)})
      table += std::to_string(v) + ",";
    table += "\n";
  }
  for (const InstanceCase& c : plan.instance_cases)
    table += std::to_string(c.file_index) + "," + std::to_string(c.diags) + "," + std::to_string(c.n) + "," +
             std::to_string(static_cast<int>(c.param)) + "\n";
  return hex64(xxh64(table));
}

json record(const PinnedPlan& p) {
  json files = json::array();
  for (const InstanceFile& f : p.instances) files.push_back({{"file", f.path}, {"bytes", f.bytes}, {"xxh64", f.xxh64}});
  return {{"case_generation", p.case_generation},
          {"config_hash", p.config_hash},
          {"cases", p.cases},
          {"shards", p.shards},
          {"layout", p.layout},
          {"instances", files}};
}

// The one form of plan.json's text (nlohmann's objects keep their keys sorted).
std::string as_written(const json& record) { return record.dump(2) + "\n"; }

// The advice for a result file whose rows are not the plan's.
std::string rewrite_advice(const std::filesystem::path& file) {
  const std::string advice = damage_advice(file);
  return advice.empty() ? "" : ": " + advice;
}

}  // namespace

std::string PinnedPlan::hash() const { return hex64(xxh64(record(*this).dump())); }

json PinnedPlan::to_json() const {
  json j = record(*this);
  j["plan_hash"] = hash();
  return j;
}

PinnedPlan pin_plan(const Plan& plan, const std::string& config_hash) {
  PinnedPlan p;
  p.config_hash = config_hash;
  p.cases = plan.total_cases;
  p.shards = plan.shards.size();
  p.layout = layout_hash(plan);
  p.instances = plan.instance_files;
  return p;
}

std::string plan_file_text(const PinnedPlan& pinned, const std::string& nqc_version) {
  json record = pinned.to_json();
  record["nqc_version"] = nqc_version;
  return as_written(record);
}

PinnedPlan parse_pinned_plan(const std::string& text) {
  if (text.empty()) throw InputError("empty");
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError("not valid JSON at byte " + std::to_string(e.byte));
  } catch (const json::exception&) {  // a number out of range (tests/fuzz/failed/config)
    throw InputError("not valid JSON (a number out of range)");
  }
  // Byte for byte as nqc writes it (sorted keys, 2-space indent, a final newline), with its
  // keys and no other: a flipped bit in the layout or in a key is damage too, not a plan that
  // reads the same (bench/damage_campaign.py). Only nqc_version's value is covered by none of
  // this and by no hash (it is for people: a digit changed into another digit goes unseen).
  if (j.is_object() && as_written(j) != text) throw InputError("not as nqc writes it");
  PinnedPlan p;
  try {
    if (!j.is_object()) throw InputError("not a JSON object");
    json keys = PinnedPlan{}.to_json();  // the keys nqc writes: its record's
    keys["nqc_version"] = "";
    for (const auto& [key, value] : keys.items())
      if (!j.contains(key)) throw InputError("no '" + key + "'");
    for (const auto& [key, value] : j.items())
      if (!keys.contains(key)) throw InputError("unexpected key '" + text::escaped(key) + "'");
    const std::string version = j.at("nqc_version").get<std::string>();
    if (version.empty() || version.find_first_not_of("0123456789.") != std::string::npos)
      throw InputError("nqc_version '" + text::escaped(version) + "' is not a version");
    p.case_generation = j.at("case_generation").get<int>();
    p.config_hash = j.at("config_hash").get<std::string>();
    p.cases = j.at("cases").get<std::uint64_t>();
    p.shards = j.at("shards").get<std::uint64_t>();
    p.layout = j.at("layout").get<std::string>();
    for (const json& f : j.at("instances"))
      p.instances.push_back(
          {f.at("file").get<std::string>(), f.at("bytes").get<std::uint64_t>(), f.at("xxh64").get<std::string>()});
    if (j.at("plan_hash").get<std::string>() != p.hash()) throw InputError("its plan_hash does not match its content");
  } catch (const json::exception& e) {
    const std::string what = e.what();
    const auto cut = what.find("] ");
    throw InputError("not a plan record: " + text::escaped(cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  return p;
}

PinnedPlan read_plan_file(const std::filesystem::path& dir) {
  return parse_pinned_plan(text::read_small_file(dir / "plan.json", 256u << 20, "plan.json"));
}

std::string plan_change(const PinnedPlan& then, const PinnedPlan& now) {
  if (then.case_generation != now.case_generation)
    return "this nqc makes cases of generation " + std::to_string(now.case_generation) +
           ", the run started with generation " + std::to_string(then.case_generation) + " (another nqc version)";
  if (then.config_hash != now.config_hash)
    return "the config changed (config_hash " + then.config_hash + " then, " + now.config_hash + " now)";
  std::map<std::string, const InstanceFile*> before, after;
  for (const InstanceFile& f : then.instances) before[f.path] = &f;
  for (const InstanceFile& f : now.instances) after[f.path] = &f;
  const std::string counts =
      " (" + std::to_string(then.instances.size()) + " files then, " + std::to_string(now.instances.size()) + " now)";
  for (const InstanceFile& f : now.instances)
    if (!before.contains(f.path)) return "the instance file " + f.path + " was added" + counts;
  for (const InstanceFile& f : then.instances)
    if (!after.contains(f.path)) return "the instance file " + f.path + " was removed" + counts;
  for (const InstanceFile& f : then.instances) {
    const InstanceFile& g = *after.at(f.path);
    if (f.bytes != g.bytes || f.xxh64 != g.xxh64)
      return "the instance file " + f.path + " changed (" + std::to_string(f.bytes) + " bytes, xxh64 " + f.xxh64 +
             " then; " + std::to_string(g.bytes) + " bytes, xxh64 " + g.xxh64 + " now)";
  }
  if (then.shards != now.shards || then.cases != now.cases || then.layout != now.layout)
    return "this nqc splits the config into other shards (" + std::to_string(then.shards) + " shards of " +
           std::to_string(then.cases) + " cases then, " + std::to_string(now.shards) + " of " +
           std::to_string(now.cases) + " now; another nqc version)";
  return "";
}

void check_against_plan(const std::filesystem::path& file, std::uint64_t shard_id, const ResultFile& content,
                        const Plan& plan, const RunIdentity& run, bool partial) {
  const std::string name = file.string();
  const std::string shards_dir = file.parent_path().string();
  const auto attr = [&](const char* key) {
    const auto it = content.attrs.find(key);
    return it == content.attrs.end() ? std::string() : it->second;
  };
  if (attr("config_hash") != run.config_hash)
    throw InputError(name + ": belongs to another config (config_hash " + text::escaped(attr("config_hash")) +
                     ", this config " + run.config_hash + "); move it out of " + shards_dir);
  if (shard_id >= plan.shards.size())
    throw InputError(name + ": shard " + std::to_string(shard_id) + " is not in this config's plan of " +
                     std::to_string(plan.shards.size()) + " shards; move it out of " + shards_dir);
  if (content.attrs.contains("plan_hash") && attr("plan_hash") != run.plan_hash)
    throw InputError(name + ": was written for another plan of this config (plan_hash " +
                     text::escaped(attr("plan_hash")) + ", this run's " + run.plan_hash +
                     "): its instance files or nqc's case making differed; move it out of " + shards_dir);
  if (content.attrs.contains("shard_id") && attr("shard_id") != std::to_string(shard_id))
    throw InputError(name + ": its shard_id attribute says " + text::quoted(attr("shard_id")) + ", its name shard " +
                     std::to_string(shard_id) + rewrite_advice(file));
  const Shard& shard = plan.shards[shard_id];
  const std::string which = "shard " + std::to_string(shard_id) + " of the plan";
  if (partial ? content.row_count >= shard.case_count() : content.row_count != shard.case_count())
    throw InputError(name + ": holds " + std::to_string(content.row_count) + " rows, " + which + " has " +
                     std::to_string(shard.case_count()) + " cases" + rewrite_advice(file));
  if (content.rows.size() != content.row_count) return;  // the rows were not read: metadata only
  std::uint64_t i = 0;
  const auto expect = [&](const char* field, std::uint64_t got, std::uint64_t want) {
    if (got != want)
      throw InputError(name + ": row " + std::to_string(i) + " has " + field + " " + std::to_string(got) + ", " +
                       which + " has " + std::to_string(want) + " there" + rewrite_advice(file));
  };
  for (const CaseRow& row : content.rows) {
    const std::uint64_t id = shard.first_case + i;
    std::uint64_t solution = 0, composition = 0;
    Index n = shard.n;
    if (shard.origin == Origin::instance) {
      const InstanceCase& c = plan.instance_cases[shard.first_solution + i];
      solution = c.file_index;
      composition = static_cast<std::uint64_t>(c.diags);
      n = c.n;
    } else {
      solution = shard.first_solution + i / shard.composition_count;
      composition = shard.first_composition + i % shard.composition_count;
    }
    expect("case_id", row.case_id, id);
    expect("shard_id", row.shard_id, shard_id);
    expect("n", static_cast<std::uint64_t>(row.n), static_cast<std::uint64_t>(n));
    expect("solution_id", row.solution_id, solution);
    expect("composition_id", row.composition_id, composition);
    ++i;
  }
  for (const FailureRecord& f : content.failures)
    if (f.case_id < shard.first_case || f.case_id >= shard.first_case + content.row_count)
      throw InputError(name + ": holds the composition of case " + std::to_string(f.case_id) +
                       ", which is not among its rows" + rewrite_advice(file));
}

}  // namespace nqc
