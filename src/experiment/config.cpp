#include "experiment/config.hpp"

#include <algorithm>
#include <functional>
#include <set>
#include <sstream>

#include "core/engine.hpp"
#include "experiment/json_schema.hpp"
#include "experiment/plan.hpp"
#include "io/errors.hpp"
#include "io/text_input.hpp"

namespace nqc {
namespace {

using nlohmann::json;

std::string shown(const json& v) { return describe_json_value(v); }

class Checker {
 public:
  explicit Checker(std::string source) : source_(std::move(source)) {}

  // The path's keys are the config's own (any text, a newline or an escape sequence too):
  // shown escaped, so that the message stays one line (tests/fuzz/failed/config).
  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw InputError(source_ + ": " + (path.empty() ? "/" : text::escaped(path)) + ": " + what);
  }

  std::uint64_t uint(const json& v, const std::string& path, std::uint64_t lo, std::uint64_t hi,
                     const std::string& what) const {
    const bool negative = v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0;
    if (!v.is_number_integer() || negative || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
      fail(path, "expected " + what + ", got " + shown(v));
    return v.get<std::uint64_t>();
  }

  double number(const json& v, const std::string& path, const std::string& what) const {
    if (!v.is_number() || v.get<double>() < 0.0) fail(path, "expected " + what + ", got " + shown(v));
    return v.get<double>();
  }

  std::string string(const json& v, const std::string& path, const std::string& what) const {
    if (!v.is_string()) fail(path, "expected " + what + ", got " + shown(v));
    return v.get<std::string>();
  }

  const std::string& source() const { return source_; }

 private:
  std::string source_;
};

// One row of the option table: key, whether required, the default written into the
// resolved config (null: none), help text, and how to read it (STYLE.md item 5).
struct Option {
  const char* key;
  bool required;
  json fallback;
  const char* help;
  std::function<void(const Checker&, const json&, const std::string&, ExperimentConfig&)> read;
};

const std::uint64_t kMaxU63 = static_cast<std::uint64_t>(INT64_MAX);

// Reads the fields of one engine's parameter struct from a JSON object, by name, and
// refuses keys that are not fields.
template <class P>
class ParamReader {
 public:
  ParamReader(const Checker& ck, const json& obj, std::string path, P& p) : ck_(ck), obj_(obj), path_(std::move(path)), p_(p) {}

  ParamReader& count(const char* key, std::uint32_t P::*m) {
    if (const json* v = take(key)) p_.*m = static_cast<std::uint32_t>(ck_.uint(*v, at(key), 0, UINT32_MAX, "an integer 0..4294967295"));
    return *this;
  }
  ParamReader& count64(const char* key, std::uint64_t P::*m) {
    if (const json* v = take(key)) p_.*m = ck_.uint(*v, at(key), 0, UINT64_MAX, "an integer >= 0");
    return *this;
  }
  ParamReader& size(const char* key, Index P::*m) {
    if (const json* v = take(key)) p_.*m = static_cast<Index>(ck_.uint(*v, at(key), 1, 2147483647, "a board size >= 1"));
    return *this;
  }
  ParamReader& level(const char* key, std::int64_t P::*m) {
    if (const json* v = take(key)) {
      if (v->is_number_integer() && v->get<std::int64_t>() == -1) p_.*m = -1;
      else p_.*m = static_cast<std::int64_t>(ck_.uint(*v, at(key), 0, 2147483647, "a number of queens >= 0, or -1 for the paper's regression"));
    }
    return *this;
  }
  ParamReader& flag(const char* key, bool P::*m) {
    if (const json* v = take(key)) {
      if (!v->is_boolean()) ck_.fail(at(key), "expected true or false, got " + shown(*v));
      p_.*m = v->get<bool>();
    }
    return *this;
  }
  ParamReader& real(const char* key, double P::*m) {
    if (const json* v = take(key)) p_.*m = ck_.number(*v, at(key), "a number >= 0");
    return *this;
  }
  /// Fails on a key that no field took.
  void finish() const {
    for (const auto& [key, _] : obj_.items())
      if (std::find(known_.begin(), known_.end(), key) == known_.end()) {
        std::string valid;
        for (const auto& k : known_) valid += (valid.empty() ? "" : ", ") + k;
        ck_.fail(at(key.c_str()), "unknown parameter (valid: " + valid + ")");
      }
  }

 private:
  const json* take(const char* key) {
    known_.emplace_back(key);
    return obj_.contains(key) ? &obj_[key] : nullptr;
  }
  std::string at(const char* key) const { return path_ + "/" + key; }

  const Checker& ck_;
  const json& obj_;
  std::string path_;
  P& p_;
  std::vector<std::string> known_;
};

void read_engine_params(const Checker& ck, const json& v, const std::string& path, ExperimentConfig& cfg) {
  if (!v.is_object()) ck.fail(path, "expected an object of the engine's parameters, got " + shown(v));
  if (cfg.engine == "grigoryan") {
    using P = GrigoryanParams;
    ParamReader<P>(ck, v, path, cfg.engine_options.grigoryan)
        .count("backtracks_per_attempt", &P::backtracks_per_attempt).count("restarts", &P::restarts)
        .count("block3_retries", &P::block3_retries).count("block5_backtracks", &P::block5_backtracks)
        .count("block5_backtracks_small", &P::block5_backtracks_small).count("repeat_bound", &P::repeat_bound)
        .count("repeat_bound_small", &P::repeat_bound_small).size("small_n", &P::small_n).size("medium_n", &P::medium_n)
        .count("risk_ties", &P::risk_ties).count("damage_ties", &P::damage_ties).flag("damage_at_z", &P::damage_at_z)
        .count("search_retractions", &P::search_retractions).flag("lookahead_columns", &P::lookahead_columns)
        .flag("first_move_sweep", &P::first_move_sweep).flag("sweep_resumes", &P::sweep_resumes)
        .level("level2", &P::level2).level("level3", &P::level3).flag("block3_stops_at_level2", &P::block3_stops_at_level2)
        .finish();
  } else if (cfg.engine == "minconflicts") {
    using P = MinConflictsParams;
    ParamReader<P>(ck, v, path, cfg.engine_options.minconflicts)
        .real("moves_per_free_row", &P::moves_per_free_row).count64("min_moves_per_try", &P::min_moves_per_try)
        .count("max_restarts", &P::max_restarts).count("partner_samples", &P::partner_samples).real("noise", &P::noise)
        .count("greedy_probes", &P::greedy_probes).finish();
  } else if (!v.empty()) {
    ck.fail(path, "engine '" + cfg.engine + "' takes no parameters (grigoryan and minconflicts do)");
  }
}

void read_sizes(const Checker& ck, const json& v, const std::string& path, ExperimentConfig& cfg) {
  if (!v.is_array() || v.empty())
    ck.fail(path, "expected a non-empty array of {\"n\", \"solutions\", \"compositions_per_solution\"}, got " + shown(v));
  for (std::size_t g = 0; g < v.size(); ++g) {
    const std::string gp = path + "/" + std::to_string(g);
    const json& item = v[g];
    if (!item.is_object()) ck.fail(gp, "expected an object with keys n, solutions, compositions_per_solution, got " + shown(item));
    for (const auto& [key, _] : item.items())
      if (key != "n" && key != "solutions" && key != "compositions_per_solution")
        ck.fail(gp + "/" + key, "unknown key (valid keys: n, solutions, compositions_per_solution)");
    for (const char* key : {"n", "solutions", "compositions_per_solution"})
      if (!item.contains(key)) ck.fail(gp, std::string("missing required key \"") + key + "\"");
    SizeGroup group;
    const json& ns = item["n"];
    const auto read_n = [&](const json& x, const std::string& p) {
      const auto n = static_cast<Index>(ck.uint(x, p, 1, 2147483647, "an integer n >= 1 (at most 2147483647)"));
      if (n == 2 || n == 3)
        ck.fail(p, "n = " + std::to_string(n) + " has no solution, so no composition can be derived from one (use n = 1 or n >= 4)");
      group.n.push_back(n);
    };
    if (ns.is_array()) {
      if (ns.empty()) ck.fail(gp + "/n", "expected a non-empty list of board sizes, got []");
      for (std::size_t i = 0; i < ns.size(); ++i) read_n(ns[i], gp + "/n/" + std::to_string(i));
    } else {
      read_n(ns, gp + "/n");
    }
    group.solutions = ck.uint(item["solutions"], gp + "/solutions", 1, kMaxU63, "an integer >= 1");
    // A shard holds at least one whole solution, so its rows must fit in memory.
    group.compositions_per_solution = ck.uint(item["compositions_per_solution"], gp + "/compositions_per_solution", 1,
                                              100'000'000, "an integer 1..10^8");
    cfg.sizes.push_back(std::move(group));
  }
}

void read_instances(const Checker& ck, const json& v, const std::string& path, ExperimentConfig& cfg) {
  if (!v.is_object()) ck.fail(path, "expected an object {\"files\": [...], \"diags\": [...]}, got " + shown(v));
  for (const auto& [key, _] : v.items())
    if (key != "files" && key != "diags") ck.fail(path + "/" + key, "unknown key (valid keys: files, diags)");
  if (!v.contains("files")) ck.fail(path, "missing required key \"files\"");
  const json& files = v["files"];
  if (!files.is_array() || files.empty()) ck.fail(path + "/files", "expected a non-empty list of files or directories, got " + shown(files));
  for (std::size_t i = 0; i < files.size(); ++i) cfg.instances.files.push_back(ck.string(files[i], path + "/files/" + std::to_string(i), "a file or directory path"));
  if (v.contains("diags")) {
    const json& d = v["diags"];
    if (!d.is_array() || d.empty()) ck.fail(path + "/diags", "expected a non-empty list of diagonal counts (-1 = all), got " + shown(d));
    cfg.instances.diags.clear();
    for (std::size_t i = 0; i < d.size(); ++i) {
      const std::string p = path + "/diags/" + std::to_string(i);
      if (d[i].is_number_integer() && d[i].get<std::int64_t>() == -1) cfg.instances.diags.push_back(-1);
      else cfg.instances.diags.push_back(static_cast<int>(ck.uint(d[i], p, 0, 100000, "a number of diagonals >= 0, or -1 for all")));
    }
  }
}

void read_k(const Checker& ck, const json& v, const std::string& path, ExperimentConfig& cfg) {
  if (!v.is_object()) ck.fail(path, "expected an object {\"min\": K1, \"max\": K2} or {\"fixed\": K}, got " + shown(v));
  for (const auto& [key, _] : v.items())
    if (key != "min" && key != "max" && key != "fixed") ck.fail(path + "/" + key, "unknown key (valid keys: fixed, max, min)");
  if (v.contains("fixed")) {
    if (v.contains("min") || v.contains("max")) ck.fail(path, "give either \"fixed\" or \"min\"/\"max\", not both");
    cfg.k.min = cfg.k.max = static_cast<std::int64_t>(ck.uint(v["fixed"], path + "/fixed", 1, 2147483646, "an integer k >= 1"));
    return;
  }
  if (v.contains("min")) cfg.k.min = static_cast<std::int64_t>(ck.uint(v["min"], path + "/min", 1, 2147483646, "an integer k >= 1"));
  if (v.contains("max")) {
    const json& m = v["max"];
    if (m.is_number_integer() && m.get<std::int64_t>() == -1) cfg.k.max = -1;
    else cfg.k.max = static_cast<std::int64_t>(ck.uint(m, path + "/max", 1, 2147483646, "an integer k >= 1, or -1 for n - 1"));
  }
  if (cfg.k.max != -1 && cfg.k.max < cfg.k.min)
    ck.fail(path, "k range " + std::to_string(cfg.k.min) + ".." + std::to_string(cfg.k.max) + " is empty (min > max)");
}

const std::vector<Option>& options() {
  static const std::vector<Option> table{
      {"name", true, nullptr, "experiment name (a string)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.name = ck.string(v, p, "a non-empty string");
         if (c.name.empty()) ck.fail(p, "expected a non-empty string, got \"\"");
       }},
      {"description", false, "", "free text",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) { c.description = ck.string(v, p, "a string"); }},
      {"seed", false, 1, "experiment seed: every random choice derives from (seed, n, solution id, composition id)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.seed = ck.uint(v, p, 0, UINT64_MAX, "an integer seed >= 0");
       }},
      {"engine", false, "auto", "completion engine",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.engine = ck.string(v, p, "an engine name");
         try {
           (void)make_engine(c.engine);
         } catch (const std::invalid_argument& e) {
           ck.fail(p, e.what());
         }
       }},
      {"engine_params", false, json::object(), "parameters of the engine, by field name (grigoryan: GrigoryanParams, with the paper's defaults; minconflicts: MinConflictsParams)",
       read_engine_params},
      {"instances", false, nullptr,
       "instead of sizes: {\"files\": [composition or CSPLib .param files, or directories of them], \"diags\": [D, ...] (for .param files; -1 = all; default [-1])}",
       read_instances},
      {"sizes", false, nullptr, "list of {\"n\": N or [N, ...], \"solutions\": S, \"compositions_per_solution\": C}", read_sizes},
      {"k", false, json{{"min", 1}, {"max", -1}}, "composition size: {\"min\": K1, \"max\": K2} (max -1 = n - 1) or {\"fixed\": K}; default uniform on 1..n-1",
       read_k},
      {"time_limit_s", false, 0, "per-case wall-clock limit in seconds, 0 = none (gives gave_up)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.time_limit_s = ck.number(v, p, "a number of seconds >= 0");
       }},
      {"max_nodes", false, 0, "per-case limit on placements tried, 0 = none (gives gave_up)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.max_nodes = ck.uint(v, p, 0, UINT64_MAX, "an integer >= 0");
       }},
      {"shard_seconds", false, 30, "target work per shard in estimated CPU seconds (the unit a rank takes, writes and loses when killed)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.shard_seconds = ck.number(v, p, "a number of seconds > 0");
         if (!(c.shard_seconds > 0)) ck.fail(p, "expected a number of seconds > 0, got " + shown(v));
       }},
      {"shard_cases", false, 100000, "at most this many cases per shard (bounds a rank's memory; a shard holds whole solutions when they fit)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.shard_cases = ck.uint(v, p, 1, kMaxU63, "an integer >= 1");
       }},
      {"output", false, nullptr, "results directory (default results/NAME)",
       [](const Checker& ck, const json& v, const std::string& p, ExperimentConfig& c) {
         c.output = ck.string(v, p, "a directory path");
         if (c.output.empty()) ck.fail(p, "expected a directory path, got \"\"");
       }},
  };
  return table;
}

std::string valid_keys() {
  std::string keys;
  for (const Option& o : options()) keys += (keys.empty() ? "" : ", ") + std::string(o.key);
  return keys;
}

// Every k the config can draw must lie in 1..n-1 for every n. n = 1 has no such k: it is
// allowed with the default range 1..n-1 only, and then draws k = 0 (the empty 1 x 1 board).
void check_k_against_sizes(const Checker& ck, const ExperimentConfig& cfg) {
  for (std::size_t g = 0; g < cfg.sizes.size(); ++g)
    for (std::size_t i = 0; i < cfg.sizes[g].n.size(); ++i) {
      const Index n = cfg.sizes[g].n[i];
      const std::string at = " (at /sizes/" + std::to_string(g) + "/n" +
                             (cfg.sizes[g].n.size() > 1 ? "/" + std::to_string(i) : "") + ")";
      if (n == 1 && cfg.k.min == 1 && cfg.k.max == -1) continue;
      if (cfg.k.min > n - 1)
        ck.fail("/k", "k range " + std::to_string(cfg.k.min) + ".." + (cfg.k.max < 0 ? std::to_string(n - 1) : std::to_string(cfg.k.max)) +
                          " has no k in 1..n-1 = 1.." + std::to_string(n - 1) + " for n = " + std::to_string(n) + at);
      if (cfg.k.max > n - 1)
        ck.fail("/k", "k range " + std::to_string(cfg.k.min) + ".." + std::to_string(cfg.k.max) +
                          " is outside 1..n-1 = 1.." + std::to_string(n - 1) + " for n = " + std::to_string(n) + at);
      // Engines for small residuals only (bitboard, sat): the smallest k must leave few free rows.
      const Index max_free = engine_info(cfg.engine).max_free_rows;
      const std::int64_t free_rows = n - std::min<std::int64_t>(cfg.k.min, n - 1);
      if (max_free != 0 && free_rows > max_free)
        ck.fail("/engine", "engine '" + cfg.engine + "' takes at most " + std::to_string(max_free) + " free rows, but n = " +
                               std::to_string(n) + " with k = " + std::to_string(cfg.k.min) + " leaves " + std::to_string(free_rows) + at +
                               ": raise /k/min or use auto or exact");
    }
}

// The plan must fit in memory and its counts in 64 bits: at most kMaxCases cases and
// kMaxShards shards (make_plan keeps one small record per shard).
constexpr long double kMaxCases = 1e12L;
constexpr long double kMaxShards = 1e7L;

void check_plan_size(const Checker& ck, const ExperimentConfig& cfg) {
  long double cases = 0, shards = 0;  // exact far past the bounds, never overflows
  for (const SizeGroup& g : cfg.sizes) {
    const auto count = static_cast<long double>(g.n.size());
    cases += count * static_cast<long double>(g.solutions) * static_cast<long double>(g.compositions_per_solution);
    for (const Index n : g.n) {
      const ShardSize size = shard_size(cfg, n, g.compositions_per_solution);
      const auto runs = static_cast<long double>((g.compositions_per_solution + size.compositions - 1) / size.compositions);
      shards += runs * static_cast<long double>(g.solutions / size.solutions + (g.solutions % size.solutions != 0));
      if (shards > kMaxShards) break;
    }
    if (cases > kMaxCases)
      ck.fail("/sizes", "the plan has more than 10^12 cases (n count x solutions x compositions_per_solution); split it into several configs");
  }
  if (shards > kMaxShards)
    ck.fail("/shard_cases", "the plan would have more than 10^7 shards; raise shard_cases (now " + std::to_string(cfg.shard_cases) +
                                ") or shard_seconds");
}

}  // namespace

ExperimentConfig parse_config(const json& j, const std::string& source) {
  // The schema first (structure, types, bounds: configs/nqc-config.schema.json), then what a
  // schema cannot say. The option table re-checks what it reads, for callers of this function.
  validate_json(j, config_schema(), source);
  const Checker ck(source);
  if (!j.is_object()) ck.fail("", "expected a JSON object, got " + shown(j));
  for (const auto& [key, _] : j.items()) {
    bool known = key == "$schema";  // for editors; not part of the experiment
    for (const Option& o : options()) known = known || key == o.key;
    if (!known) ck.fail("/" + key, "unknown key (valid keys: " + valid_keys() + ")");
  }
  ExperimentConfig cfg;
  json resolved = json::object();
  for (const Option& o : options()) {
    const std::string path = std::string("/") + o.key;
    if (j.contains(o.key)) {
      o.read(ck, j[o.key], path, cfg);
      resolved[o.key] = j[o.key];
    } else if (o.required) {
      ck.fail("", std::string("missing required key \"") + o.key + "\"");
    } else if (!o.fallback.is_null()) {
      o.read(ck, o.fallback, path, cfg);
      resolved[o.key] = o.fallback;
    }
  }
  if (cfg.sizes.empty() == cfg.instances.files.empty())
    ck.fail("", "expected exactly one of \"sizes\" (generated cases) and \"instances\" (files)");
  // (The resolved config that result files store holds the default k: that one passes.)
  if (!cfg.instances.files.empty() && j.contains("k") && j["k"] != json{{"min", 1}, {"max", -1}})
    ck.fail("/k", "instances run as given: k applies to generated cases (sizes) only");
  if (!cfg.instances.files.empty() && cfg.engine == "grigoryan")
    ck.fail("/engine", "engine 'grigoryan' runs derived compositions only (instances may exclude diagonals): use auto, bitboard, exact, minconflicts or sat");
  if (cfg.output.empty()) cfg.output = "results/" + cfg.name;
  resolved["output"] = cfg.output;
  check_k_against_sizes(ck, cfg);
  check_plan_size(ck, cfg);
  cfg.resolved = std::move(resolved);
  return cfg;
}

ExperimentConfig load_config(const std::filesystem::path& file) {
  const std::string name = file.string();
  std::error_code ec;
  namespace fs = std::filesystem;
  // A byte-order mark dropped and CR / CRLF made LF (text_input.hpp), so that the parser's line
  // numbers are an editor's.
  const std::string text = text::normalized(text::read_small_file(file, 16u << 20, "config"));
  json j;
  // Duplicate keys are an error (nlohmann keeps the last one silently): one set of keys per
  // open object.
  std::vector<std::set<std::string>> keys;
  std::string duplicate;
  const json::parser_callback_t check_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty()) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  try {
    j = json::parse(text, check_keys);
  } catch (const json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = e.what();
    const auto cut = what.find("] ");
    throw InputError(name + ": invalid JSON: " + text::escaped(cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  if (!duplicate.empty()) throw InputError(name + ": invalid JSON: duplicate key \"" + text::escaped(duplicate) + "\"");
  ExperimentConfig config = parse_config(j, name);
  // Instance paths become absolute (relative ones are taken from the config file's
  // directory) in the config and in the resolved config that result files store, so that a
  // rerun or resume works from any working directory.
  for (std::size_t i = 0; i < config.instances.files.size(); ++i) {
    std::string& f = config.instances.files[i];
    const std::string at = name + ": /instances/files/" + std::to_string(i) + ": ";
    fs::path p(f);
    if (p.is_relative()) p = fs::absolute(file.parent_path() / p, ec);
    f = p.lexically_normal().string();
    if (!fs::exists(f, ec)) throw InputError(at + f + ": no such file or directory");
    if (fs::is_directory(f, ec)) {
      bool any = false;
      for (const auto& entry : fs::directory_iterator(f, ec))
        any = any || (entry.is_regular_file() && (entry.path().extension() == ".param" || entry.path().extension() == ".txt"));
      if (!any) throw InputError(at + f + ": no instance files (*.param, *.txt) in this directory (subdirectories are not searched)");
    } else if (!fs::is_regular_file(f, ec)) {
      throw InputError(at + f + ": not a regular file or a directory");
    }
    config.resolved["instances"]["files"][i] = f;
  }
  return config;
}

std::string config_help() {
  std::ostringstream out;
  out << "Experiment config keys (JSON object; JSON Schema: configs/nqc-config.schema.json):\n";
  for (const Option& o : options()) {
    out << "  " << o.key << (o.required ? " (required)" : "");
    if (!o.fallback.is_null()) out << " [default " << o.fallback.dump() << "]";
    out << "\n      " << o.help << "\n";
  }
  return out.str();
}

}  // namespace nqc
