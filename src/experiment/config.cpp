#include "experiment/config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <sstream>

#include "core/engine.hpp"
#include "core/symmetry.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/engine_params.hpp"
#include "experiment/json_shape.hpp"
#include "experiment/plan.hpp"
#include "formats/csplib.hpp"
#include "formats/text_input.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using Store = std::function<void(const json&)>;
using Type = JsonShape::Type;

constexpr std::uint64_t kMaxU64 = UINT64_MAX;
constexpr std::uint64_t kMaxU63 = INT64_MAX;
constexpr std::uint64_t kMaxIndex = kMaxBoardSize;
constexpr std::uint64_t kMaxK = kMaxBoardSize - 1;
// The largest board of each generated origin, and why (derived boards: kMaxBoardSize).
std::pair<Index, const char*> max_board(Origin origin) {
  switch (origin) {
    case Origin::canonical: return {kMaxCanonicalBoard, "canonical compositions"};
    case Origin::random: return {kMaxPlacedQueensBoard, "random_compositions (16 n bytes and seconds per draw)"};
    case Origin::excluded_diagonals:
      return {kMaxExcludedDiagonalsBoard, "excluded_diagonals (its generator takes O(n) steps per diagonal)"};
    default: return {static_cast<Index>(kMaxBoardSize), "a board"};
  }
}

// Stores that write the value into `field`, or into `field` of the last element of `list`.
template <class T>
Store into(T& field) {
  return [&field](const json& v) { field = v.get<T>(); };
}
template <class T, class M>
Store into_last(std::vector<T>& list, M T::*field) {
  return [&list, field](const json& v) { list.back().*field = v.get<M>(); };
}

JsonShape shape(Type type, std::string expected, Store store = {}) {
  JsonShape s;
  s.type = type;
  s.expected = std::move(expected);
  s.store = std::move(store);
  return s;
}

// An integer range as messages state it: ">= MIN", "MIN..10^E" or ">= MIN (at most MAX)".
std::string range_text(std::int64_t min, std::uint64_t max) {
  if (max >= kMaxU63) return ">= " + std::to_string(min);
  int e = 0;
  std::uint64_t p = 1;
  while (p < max && p <= kMaxU64 / 10) p *= 10, ++e;
  if (p == max && e >= 4) return std::to_string(min) + "..10^" + std::to_string(e);
  return ">= " + std::to_string(min) + " (at most " + std::to_string(max) + ")";
}

// An integer in min..max; its message "NOUN RANGE" (range_text).
JsonShape integer(std::int64_t min, std::uint64_t max, const std::string& noun, Store store) {
  JsonShape s = shape(Type::integer, noun + " " + range_text(min, max), std::move(store));
  s.min = min;
  s.max = max;
  return s;
}

// A number >= min (> min when `above_min`); its message "NOUN >= MIN" or "NOUN > MIN".
JsonShape number(double min, bool above_min, const std::string& noun, Store store) {
  JsonShape s = shape(Type::number, noun + (above_min ? " > " : " >= ") + schema_number(min).dump(), std::move(store));
  s.min_number = min;
  s.above_min = above_min;
  return s;
}

// `s` that also takes `value` (below its range), which means `meaning`: ", or VALUE for MEANING".
JsonShape also(JsonShape s, std::int64_t value, const std::string& meaning) {
  s.also = value;
  s.expected += ", or " + std::to_string(value) + " for " + meaning;
  return s;
}

JsonShape array_of(const JsonShape& items, std::string expected, Store store = {}) {
  JsonShape s = shape(Type::array, std::move(expected), std::move(store));
  s.non_empty = true;
  s.items = std::make_shared<const JsonShape>(items);
  return s;
}

// One `item` ("a ONE"), or a non-empty list of them ("a non-empty list of MANY").
JsonShape one_or_list(const JsonShape& item, const std::string& one, const std::string& many) {
  JsonShape s = shape(Type::one_or_list, "a " + one + " or a non-empty list of them");
  s.items = std::make_shared<const JsonShape>(item);
  s.list = std::make_shared<const JsonShape>(array_of(item, "a non-empty list of " + many));
  return s;
}

JsonShape object_of(std::vector<JsonField> fields, std::string expected, Store store = {}) {
  JsonShape s = shape(Type::object, std::move(expected), std::move(store));
  s.fields = std::move(fields);
  return s;
}

// The object of the fallbacks of an object shape's fields (the default of the whole object).
json fallbacks_of(const JsonShape& object) {
  json j = json::object();
  for (const JsonField& f : object.fields)
    if (f.fallback) j[f.key] = *f.fallback;
  return j;
}

// The config key of an origin's cases.
std::string key(Origin origin) { return std::string(kOriginKeys[static_cast<int>(origin)]); }

// A key of an object shape: required (no default), or optional with its default (none: {}).
JsonField required_key(std::string key, std::string help, JsonShape shape) {
  return {std::move(key), true, {}, std::move(help), std::move(shape)};
}
JsonField optional_key(std::string key, std::optional<json> fallback, std::string help, JsonShape shape) {
  return {std::move(key), false, std::move(fallback), std::move(help), std::move(shape)};
}

// The config table: one row per key (required, default, help, shape: type, range, message,
// where the value goes in `c`), the one place of the keys, defaults and checks; config_help()
// and config_schema() write it out. Engine parameters: read_engine_params. '$' keys are for editors.
JsonShape config_table(ExperimentConfig& c) {
  const JsonShape n = one_or_list(
      integer(1, kMaxIndex, "an integer n", [&c](const json& v) { c.sizes.back().n.push_back(v.get<Index>()); }),
      "board size n", "board sizes");
  const JsonShape group = object_of(
      {required_key("n", "board sizes: N or [N, ...]", n),
       required_key("solutions", "random solutions per n",
                    integer(1, kMaxU63, "an integer", into_last(c.sizes, &SizeGroup::solutions))),
       // A shard holds at least one whole solution, so its rows must fit in memory.
       required_key("compositions_per_solution", "compositions derived from each solution",
                    integer(1, 100'000'000, "an integer", into_last(c.sizes, &SizeGroup::compositions_per_solution)))},
      "an object with keys n, solutions, compositions_per_solution", [&c](const json&) { c.sizes.emplace_back(); });

  // The cases of the other generated origins: board sizes, the origin's parameter, samples.
  const JsonField group_n = required_key(
      "n", "board sizes: N or [N, ...]",
      one_or_list(
          integer(1, kMaxIndex, "an integer n", [&c](const json& v) { c.groups.back().n.push_back(v.get<Index>()); }),
          "board size n", "board sizes"));
  const auto values = [&c](Origin origin, std::int64_t min, const std::string& help) {
    const std::string key(param_name(origin));
    return required_key(key, help + ": V or [V, ...]",
                        one_or_list(integer(min, kMaxIndex, "an integer",
                                            [&c](const json& v) { c.groups.back().values.push_back(v.get<Index>()); }),
                                    key + " value", key + " values"));
  };
  const JsonField samples = required_key(
      "samples", "cases per n and value",
      integer(1, kMaxU63, "an integer", [&c](const json& v) { c.groups.back().samples = v.get<std::uint64_t>(); }));
  const auto origin_group = [&c](Origin origin, std::vector<JsonField> fields) {
    std::string keys;
    for (const JsonField& f : fields) keys += (keys.empty() ? "" : ", ") + f.key;
    return array_of(object_of(std::move(fields), "an object with keys " + keys,
                              [&c, origin](const json&) {
                                c.origin = origin;
                                c.groups.emplace_back();
                              }),
                    "a non-empty array of {" + keys + "}");
  };
  const JsonShape random =
      origin_group(Origin::random, {group_n, values(Origin::random, 1, "free rows f (k = n - f queens)"), samples});
  const JsonShape excluded = origin_group(
      Origin::excluded_diagonals, {group_n, values(Origin::excluded_diagonals, 0, "diagonals d to exclude"), samples});
  const JsonShape canonical = origin_group(Origin::canonical, {group_n, values(Origin::canonical, 1, "queens k")});

  JsonShape path =
      shape(Type::string, "a file or directory path", [&c](const json& v) { c.instances.files.push_back(v); });
  path.non_empty = true;
  const JsonShape diag = also(
      integer(0, 100000, "a number of diagonals", [&c](const json& v) { c.instances.diags.push_back(v.get<int>()); }),
      -1, "all");
  const JsonShape instances = object_of(
      {required_key(
           "files",
           "composition files or CSPLib prob079 .param files, or directories of them (their *.txt and *.param files)",
           array_of(path, "a non-empty list of files or directories")),
       optional_key("diags", json::array({-1}),
                    "for .param files: the numbers of excluded diagonals to run each with (-1 = all)",
                    array_of(diag, "a non-empty list of diagonal counts (-1 = all)",
                             [&c](const json&) { c.instances.diags.clear(); }))},
      "an object {\"files\": [...], \"diags\": [...]}", [&c](const json&) { c.origin = Origin::instance; });

  const JsonShape k_max = also(integer(1, kMaxK, "an integer k", into(c.k.max)), -1, "n - 1");
  const JsonShape k = object_of(
      {optional_key("min", KRange{}.min, "smallest k", integer(1, kMaxK, "an integer k", into(c.k.min))),
       optional_key("max", KRange{}.max, "largest k; -1 = n - 1", k_max),
       optional_key(
           "fixed", {}, "k for every composition (instead of min and max)",
           integer(1, kMaxK, "an integer k", [&c](const json& v) { c.k.min = c.k.max = v.get<std::int64_t>(); }))},
      "an object {\"min\": K1, \"max\": K2} or {\"fixed\": K}");

  JsonShape name = shape(Type::string, "a name of letters, digits, '.', '_' and '-' that starts with a letter or digit",
                         into(c.name));
  name.pattern = "^[A-Za-z0-9][A-Za-z0-9._-]*$";
  JsonShape engine =
      shape(Type::string, "one of the engines " + engine_list([](const EngineInfo&) { return true; }), into(c.engine));
  engine.choices = engine_names();
  JsonShape output = shape(Type::string, "a directory path", into(c.output));
  output.non_empty = true;
  const JsonShape time_limit = number(0, false, "a number of seconds", into(c.time_limit_s));
  const JsonShape shard_seconds = number(0, true, "a number of seconds", into(c.shard_seconds));
  JsonShape engine_params = shape(Type::object, "an object of the engine's parameters");
  engine_params.open = true;  // the engine's parameters: read_engine_params

  return object_of(
      {
          optional_key("$schema", {}, "this schema's path or URL, for editors; ignored by nqc",
                       shape(Type::string, "a value of type string")),
          required_key("name", "experiment name; the default output is results/NAME", name),
          optional_key("description", "", "free text", shape(Type::string, "a string", into(c.description))),
          optional_key("seed", 1,
                       "experiment seed: every random choice derives from (seed, n, solution id, composition id)",
                       integer(0, kMaxU64, "an integer seed", into(c.seed))),
          optional_key("engine", kDefaultEngine, "completion engine (nqc complete --help lists them)", engine),
          optional_key("engine_params", json::object(),
                       "parameters of the engine by name; each engine's defaults are its own (grigoryan: the paper's)",
                       engine_params),
          optional_key(key(Origin::instance), {}, "external instances, each run as given (k does not apply)",
                       instances),
          optional_key(key(Origin::derived), {},
                       "derived cases (each has a completion): groups of board sizes with their sample sizes",
                       array_of(group, "a non-empty array of {\"n\", \"solutions\", \"compositions_per_solution\"}")),
          optional_key(
              key(Origin::random), {},
              "random consistent compositions with f free rows, CSPLib's placed-queens procedure ([Gent17]): groups",
              random),
          optional_key(key(Origin::excluded_diagonals), {},
                       "CSPLib's Excluded Diagonals instances with d diagonals excluded ([Gent17]): groups", excluded),
          optional_key(key(Origin::canonical), {},
                       "every consistent composition of k queens up to the board's 8 symmetries (one canonical case "
                       "each, with its orbit size): groups",
                       canonical),
          optional_key(
              "k", fallbacks_of(k),
              "queens in each composition: uniform on min..max (max -1 = n - 1) or fixed; each k must lie in 1..n-1",
              k),
          optional_key("time_limit_s", 0, "per-case wall-clock limit in seconds, 0 = none (a case over it is gave_up)",
                       time_limit),
          optional_key("max_nodes", 0, "per-case limit on placements tried, 0 = none (a case over it is gave_up)",
                       integer(0, kMaxU64, "an integer", into(c.max_nodes))),
          optional_key(
              "shard_seconds", 30,
              "target work per shard in estimated CPU seconds (the unit a rank takes, writes and loses when killed)",
              shard_seconds),
          optional_key(
              "shard_cases", 100000,
              "at most this many cases per shard (bounds a rank's memory; a shard holds whole solutions when they fit)",
              integer(1, kMaxU63, "an integer", into(c.shard_cases))),
          optional_key("output", {}, "results directory (default results/NAME; nqc run -o overrides it)", output),
      },
      "a JSON object");
}

// One kind of case per config: the one rule across keys that JSON Schema states too.
const std::string kExactlyOne = [] {
  std::string keys;
  for (std::size_t i = 0; i < std::size(kOriginKeys); ++i)
    keys += std::string(i == 0                            ? ""
                        : i + 1 == std::size(kOriginKeys) ? " and "
                                                          : ", ") +
            "\"" + std::string(kOriginKeys[i]) + "\"";
  return "exactly one of " + keys;
}();

// Relative paths in a config: one base, the config file's directory (load_config resolves them).
const char* const kConfigPathsHelp =
    "Paths: a relative path in a config (output, its default results/NAME, instances' files) is taken from the "
    "directory of\n"
    "the config file, so that a config names the same files from any working directory (a config and its instances "
    "travel\n"
    "together; a rerun or resume finds them from anywhere, and so does a job whose working directory is the results\n"
    "directory); nqc run -o DIR, a command-line path, is taken from the current directory.";

// What the table cannot say, in the order the config reads.

// n = 2 and 3 have no solution to derive compositions from.
void check_sizes_have_solutions(const json& j, const ExperimentConfig& cfg, const std::string& source) {
  for (std::size_t g = 0; g < cfg.sizes.size(); ++g)
    for (std::size_t i = 0; i < cfg.sizes[g].n.size(); ++i) {
      const Index n = cfg.sizes[g].n[i];
      if (n == 2 || n == 3)
        fail_at(source,
                "/sizes/" + std::to_string(g) + "/n" + (j["sizes"][g]["n"].is_array() ? "/" + std::to_string(i) : ""),
                "n = " + std::to_string(n) +
                    " has no solution, so no composition can be derived from one (use n = 1 or n >= 4)");
    }
}

void check_k(const json& j, const ExperimentConfig& cfg, const std::string& source) {
  if (!j.contains("k")) return;
  const json& k = j["k"];
  if (k.contains("fixed") && (k.contains("min") || k.contains("max")))
    fail_at(source, "/k", "give either \"fixed\" or \"min\"/\"max\", not both");
  if (cfg.k.max != -1 && cfg.k.max < cfg.k.min)
    fail_at(source, "/k",
            "k range " + std::to_string(cfg.k.min) + ".." + std::to_string(cfg.k.max) + " is empty (min > max)");
}

// Every k must lie in 1..n-1 for every n; n = 1 only with the default range (it draws k = 0).
void check_k_against_sizes(const ExperimentConfig& cfg, const std::string& source) {
  const EngineInfo& engine = engine_info(cfg.engine);
  for (std::size_t g = 0; g < cfg.sizes.size(); ++g)
    for (std::size_t i = 0; i < cfg.sizes[g].n.size(); ++i) {
      const Index n = cfg.sizes[g].n[i];
      const std::string at =
          " (at /sizes/" + std::to_string(g) + "/n" + (cfg.sizes[g].n.size() > 1 ? "/" + std::to_string(i) : "") + ")";
      if (n == 1 && cfg.k.min == 1 && cfg.k.max == -1) continue;
      if (cfg.k.min > n - 1)
        fail_at(source, "/k",
                "k range " + std::to_string(cfg.k.min) + ".." +
                    (cfg.k.max < 0 ? std::to_string(n - 1) : std::to_string(cfg.k.max)) + " has no k in 1..n-1 = 1.." +
                    std::to_string(n - 1) + " for n = " + std::to_string(n) + at);
      if (cfg.k.max > n - 1)
        fail_at(source, "/k",
                "k range " + std::to_string(cfg.k.min) + ".." + std::to_string(cfg.k.max) + " is outside 1..n-1 = 1.." +
                    std::to_string(n - 1) + " for n = " + std::to_string(n) + at);
      // Engines for small residuals only (bitboard, sat): the smallest k must leave few free rows.
      const std::int64_t free_rows = n - std::min<std::int64_t>(cfg.k.min, n - 1);
      if (engine.max_free_rows != 0 && free_rows > engine.max_free_rows)
        fail_at(source, "/engine",
                "engine '" + cfg.engine + "' takes at most " + std::to_string(engine.max_free_rows) +
                    " free rows, but n = " + std::to_string(n) + " with k = " + std::to_string(cfg.k.min) + " leaves " +
                    std::to_string(free_rows) + at + ": raise /k/min or use " +
                    engine_list([](const EngineInfo& e) { return e.complete && e.max_free_rows == 0; }, " or "));
    }
}

// The cases of the other generated origins: each (n, value) once, on a board that allows it.
void check_groups(const ExperimentConfig& cfg, const std::string& source) {
  const EngineInfo& engine = engine_info(cfg.engine);
  const std::string at_key = "/" + key(cfg.origin) + "/";
  const std::string name(param_name(cfg.origin));
  std::set<std::pair<Index, Index>> seen;
  for (std::size_t g = 0; g < cfg.groups.size(); ++g)
    for (const Index n : cfg.groups[g].n)
      for (const Index v : cfg.groups[g].values) {
        const std::string at = at_key + std::to_string(g);
        const std::string pair = "(n = " + std::to_string(n) + ", " + name + " = " + std::to_string(v) + ")";
        if (!seen.emplace(n, v).second)
          fail_at(source, at, pair + " is given twice (expected each n and " + name + " once)");
        if (const auto [largest, what] = max_board(cfg.origin); n > largest)
          fail_at(source, at, pair + ": expected n <= " + std::to_string(largest) + " for " + what);
        // CSPLib's generator keeps more than 4 open cells per row and column: none on n <= 4.
        const bool excluded = cfg.origin == Origin::excluded_diagonals;
        const std::int64_t most = excluded ? (n <= 4 ? 0 : 4 * std::int64_t{n} - 2) : n;
        if (v > most)
          fail_at(source, at,
                  pair + ": expected " + name + " <= " + std::to_string(most) +
                      (!excluded ? " (= n)"
                       : n <= 4  ? " (CSPLib's generator keeps more than 4 open cells in each row and column)"
                                 : " (the board's diagonals)"));
        // The most queens that stand on the board without attacking: n, but 1 and 2 for n = 2, 3.
        const std::int64_t most_queens = n == 2 || n == 3 ? n - 1 : n;
        if (cfg.origin == Origin::canonical && v > most_queens)
          fail_at(source, at,
                  pair + ": no " + std::to_string(v) + " queens stand on the " + std::to_string(n) + " x " +
                      std::to_string(n) + " board without attacking; expected k <= " + std::to_string(most_queens));
        const std::int64_t free_rows = cfg.origin == Origin::random ? v : cfg.origin == Origin::canonical ? n - v : n;
        if (engine.max_free_rows != 0 && free_rows > engine.max_free_rows)
          fail_at(source, "/engine",
                  "engine '" + cfg.engine + "' takes at most " + std::to_string(engine.max_free_rows) +
                      " free rows, but " + pair + " (at " + at + ") leaves " + std::to_string(free_rows));
      }
}

// A large count as "6.6e+17".
std::string approx(long double count) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2Lg", count);
  return text;
}

// The plan must fit in memory and its counts in 64 bits.
constexpr long double kMaxCases = 1e12L;
constexpr long double kMaxShards = 1e7L;
// Canonical compositions are counted by every rank at its start (about 0.1-0.7 us each).
constexpr long double kMaxCanonicalCases = 3e8L;

void check_plan_size(const ExperimentConfig& cfg, const std::string& source) {
  long double cases = 0, shards = 0;  // exact far past the bounds, never overflows
  for (const SizeGroup& g : cfg.sizes) {
    const auto count = static_cast<long double>(g.n.size());
    cases += count * static_cast<long double>(g.solutions) * static_cast<long double>(g.compositions_per_solution);
    for (const Index n : g.n) {
      const ShardSize size = shard_size(cfg, n, g.compositions_per_solution);
      const auto runs =
          static_cast<long double>((g.compositions_per_solution + size.compositions - 1) / size.compositions);
      shards += runs * static_cast<long double>(g.solutions / size.solutions + (g.solutions % size.solutions != 0));
      if (shards > kMaxShards) break;
    }
    if (cases > kMaxCases)
      fail_at(source, "/sizes",
              "the plan has more than 10^12 cases (n count x solutions x compositions_per_solution); split it into "
              "several configs");
  }
  for (std::size_t g = 0; g < cfg.groups.size(); ++g)
    for (const Index n : cfg.groups[g].n)
      for (const Index v : cfg.groups[g].values) {
        long double count = static_cast<long double>(cfg.groups[g].samples);
        if (cfg.origin == Origin::canonical) {
          // At most about C(n^2, k) / 8 up to symmetry, which the plan enumerates.
          count = 1;
          for (Index i = 0; i < v; ++i)
            count *= static_cast<long double>(std::int64_t{n} * n - i) / static_cast<long double>(i + 1);
          count /= 8;
          if (count > kMaxCanonicalCases)
            fail_at(source, "/" + key(cfg.origin) + "/" + std::to_string(g),
                    "(n = " + std::to_string(n) + ", k = " + std::to_string(v) +
                        ") has up to C(n^2, k) / 8 = " + approx(count) +
                        " canonical compositions, more than the 3*10^8 a plan enumerates (nqc_bench_threshold counts "
                        "past it)");
        }
        cases += count;
        shards += std::ceil(count / static_cast<long double>(shard_size(cfg, n, 1).solutions)) + 1;
        if (cases > kMaxCases)  // one group's samples alone, or the points together
          fail_at(
              source,
              "/" + key(cfg.origin) +
                  (count > kMaxCases && cfg.origin != Origin::canonical ? "/" + std::to_string(g) + "/samples" : ""),
              "the plan has more than 10^12 cases; split it into several configs");
      }
  if (shards > kMaxShards)
    fail_at(source, "/shard_cases",
            "the plan would have more than 10^7 shards; raise shard_cases (now " + std::to_string(cfg.shard_cases) +
                ") or shard_seconds");
}

// Every engine's parameters for config_help, under engine_params.
std::string all_engines_help(const std::string& indent) {
  std::string out;
  for (const EngineInfo& e : engine_infos())
    if (!e.params.empty()) out += indent + e.name + ":\n" + engine_params_help(e, indent + "  ");
  const std::string none = engine_list([](const EngineInfo& e) { return e.params.empty(); }, " and ");
  if (none.empty()) return out;
  return out + indent + none + (none.find(' ') == std::string::npos ? " takes none\n" : " take none\n");
}

namespace fs = std::filesystem;

// The parsed text of `file`. Throws nqc::InputError for invalid JSON or a key twice in an object.
json parse_file(const fs::path& file) {
  const std::string name = file.string();
  // No byte-order mark, LF line ends: the parser's line numbers are an editor's.
  const std::string text = text::normalized(text::read_small_file(file, 16u << 20, "config"));
  // The open objects and arrays with their JSON paths, to name a key given twice where it is.
  struct Open {
    std::string path;
    bool array = false;
    std::size_t elements = 0;
    std::set<std::string> keys;
    std::string key;
  };
  std::vector<Open> open;
  std::string duplicate;
  const auto element_path = [&] {
    if (open.empty()) return std::string();
    Open& parent = open.back();
    return parent.path + "/" + (parent.array ? std::to_string(parent.elements++) : parent.key);
  };
  const json::parser_callback_t check_keys = [&](int, json::parse_event_t event, json& parsed) {
    using E = json::parse_event_t;
    if (event == E::object_start || event == E::array_start) {
      std::string path = element_path();
      open.push_back({std::move(path), event == E::array_start, 0, {}, {}});
    } else if (event == E::object_end || event == E::array_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == E::value) {
      if (!open.empty() && open.back().array) ++open.back().elements;
    } else if (event == E::key && !open.empty()) {
      open.back().key = parsed.get<std::string>();
      if (!open.back().keys.insert(open.back().key).second && duplicate.empty())
        duplicate = open.back().path + "/" + open.back().key;
    }
    return true;
  };
  json j;
  try {
    j = json::parse(text, check_keys);
  } catch (const json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = e.what();
    const auto cut = what.find("] ");
    throw InputError(name + ": invalid JSON: " + text::escaped(cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  if (!duplicate.empty())
    throw InputError(name + ": " + text::escaped(duplicate) +
                     ": this key is given twice in its object (expected once)");
  return j;
}

// `path` taken from `base` (the config file's directory) when relative.
fs::path from_base(const fs::path& base, const fs::path& path) {
  return path.is_relative() ? (base / path).lexically_normal() : path;
}

}  // namespace

ExperimentConfig parse_config(const json& j, const std::string& source) {
  ExperimentConfig cfg;
  const JsonShape table = config_table(cfg);
  check_json(j, table, source);
  if (std::ranges::count_if(kOriginKeys, [&j](std::string_view k) { return j.contains(k); }) != 1)
    fail_at(source, "", "expected " + kExactlyOne);
  const EngineInfo& engine = engine_info(cfg.engine);
  if (j.contains("engine_params"))
    read_engine_params(j["engine_params"], engine, cfg.engine_options, source, "/engine_params");
  check_sizes_have_solutions(j, cfg, source);
  check_k(j, cfg, source);
  // (The resolved config that result files store holds the default k: that one passes.)
  if (cfg.origin != Origin::derived && j.contains("k") && j["k"] != *field_of(table, "k").fallback)
    fail_at(source, "/k", "k applies to derived cases (sizes) only, not to " + key(cfg.origin));
  const bool diagonals = cfg.origin == Origin::instance || cfg.origin == Origin::excluded_diagonals;
  if (diagonals && !engine.excluded_diagonals)
    fail_at(source, "/engine",
            "engine '" + cfg.engine + "' cannot exclude diagonals, which the cases of " + key(cfg.origin) +
                " do: use " + engine_list([](const EngineInfo& e) { return e.excluded_diagonals; }, " or "));
  // A generated composition may have no completion: only a complete search tells.
  if (cfg.origin != Origin::derived && cfg.origin != Origin::instance && !engine.complete)
    fail_at(source, "/engine",
            "engine '" + cfg.engine + "' is incomplete (it cannot prove a composition infeasible), and the cases of " +
                key(cfg.origin) + " may have no completion: use " +
                engine_list([](const EngineInfo& e) { return e.complete; }, " or "));
  check_groups(cfg, source);
  cfg.source = source;
  if (cfg.output.empty()) cfg.output = "results/" + cfg.name;
  check_k_against_sizes(cfg, source);
  check_plan_size(cfg, source);
  // Every key of the table, as written or its default (not those inside a key: config_hash).
  cfg.resolved = json::object();
  for (const JsonField& f : table.fields) {
    if (f.key[0] == '$') continue;
    if (j.contains(f.key))
      cfg.resolved[f.key] = j[f.key];
    else if (f.fallback)
      cfg.resolved[f.key] = *f.fallback;
  }
  cfg.resolved["output"] = cfg.output;
  return cfg;
}

std::string config_help() {
  ExperimentConfig scratch;
  const JsonShape table = config_table(scratch);
  std::ostringstream out;
  out << "Experiment config keys (a JSON object; JSON Schema: configs/nqc-config.schema.json, or nqc run "
         "--config-schema):\n";
  // A key, its sub-keys, and for engine_params every engine's parameters.
  const std::function<void(const JsonShape&, const std::string&)> keys = [&](const JsonShape& object,
                                                                             const std::string& indent) {
    for (const JsonField& f : object.fields) {
      if (f.key[0] == '$') continue;
      out << indent << f.key << (f.required ? " (required)" : "");
      if (f.fallback) out << " [default " << f.fallback->dump() << "]";
      out << "\n" << indent << "    " << f.help << "\n";
      const JsonShape& inner = f.shape.type == JsonShape::Type::array ? *f.shape.items : f.shape;
      if (inner.type == JsonShape::Type::object) keys(inner, indent + "    ");
      if (&object == &table && f.key == "engine_params") out << all_engines_help(indent + "    ");
    }
  };
  keys(table, "  ");
  out << kConfigPathsHelp << "\n";
  return out.str();
}

nlohmann::ordered_json config_schema() {
  ExperimentConfig scratch;
  ordered_json schema = {{"$schema", "http://json-schema.org/draft-07/schema#"},
                         {"$id", "https://nqc.invalid/configs/nqc-config.schema.json"},
                         {"title", "nqc experiment config"},
                         {"description",
                          "An nqc experiment: its cases (derived from solutions, instance files, random "
                          "compositions, Excluded Diagonals instances or canonical compositions), the engine and its "
                          "parameters, limits and the results directory. Generated from nqc's config table "
                          "(src/experiment/config.cpp, the "
                          "engines' parameter rows): do not "
                          "edit; `nqc run --config-schema` writes it. nqc checks every config with that table before "
                          "any shard runs, then what a "
                          "schema cannot say (k against each n, n = 2 and 3, plan size). Each `expected` keyword is "
                          "the text nqc prints after "
                          "'expected' when a value fails that node."},
                         {"$comment",
                          "nqc is stricter than draft-07 in two ways: an integer must be written as one (8, not 8.0 or "
                          "1e3), and a key may not "
                          "appear twice in one object. tests/cli/test_config_schema.py checks that nqc and Debian's "
                          "python3-jsonschema give every "
                          "config in configs/ and a corpus of bad ones the same verdict."}};
  schema.update(json_schema_of(config_table(scratch)));
  ordered_json all_of = ordered_json::array();
  ordered_json one_of = ordered_json::array();
  for (const std::string_view k : kOriginKeys) one_of.push_back({{"required", {k}}});
  all_of.push_back({{"oneOf", one_of}, {"expected", kExactlyOne}});
  // Each engine's parameters, when the engine is chosen (by name, or as the default).
  const std::string default_engine = field_of(config_table(scratch), "engine").fallback->get<std::string>();
  for (const EngineInfo& e : engine_infos()) {
    ordered_json when = {{"properties", {{"engine", {{"const", e.name}}}}}};
    if (e.name != default_engine) when["required"] = {"engine"};
    all_of.push_back({{"if", when}, {"then", {{"properties", {{"engine_params", engine_params_schema(e)}}}}}});
  }
  schema["allOf"] = std::move(all_of);
  return schema;
}

std::string config_schema_text() { return config_schema().dump(2) + "\n"; }

ExperimentConfig load_config(const fs::path& file) {
  const std::string name = file.string();
  ExperimentConfig config = parse_config(parse_file(file), name);
  std::error_code ec;
  const fs::path base = file.parent_path();
  // One base for every relative path (config_help, "Paths"); instance paths become absolute,
  // in `resolved` too, so that a rerun or resume works from any working directory.
  config.output = from_base(base, config.output).string();
  config.resolved["output"] = config.output;
  for (std::size_t i = 0; i < config.instances.files.size(); ++i) {
    std::string& f = config.instances.files[i];
    const std::string at = name + ": /instances/files/" + std::to_string(i) + ": ";
    f = fs::absolute(from_base(base, f), ec).lexically_normal().string();
    if (!fs::exists(f, ec)) throw InputError(at + f + ": no such file or directory");
    if (fs::is_directory(f, ec)) {
      bool any = false;
      for (const auto& entry : fs::directory_iterator(f, ec))
        any = any ||
              (entry.is_regular_file() && (entry.path().extension() == ".param" || entry.path().extension() == ".txt"));
      if (!any)
        throw InputError(at + f +
                         ": no instance files (*.param, *.txt) in this directory (subdirectories are not searched)");
    } else if (!fs::is_regular_file(f, ec)) {
      throw InputError(at + f + ": not a regular file or a directory");
    }
    config.resolved["instances"]["files"][i] = f;
  }
  return config;
}

}  // namespace nqc
