#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "core/engine_options.hpp"
#include "experiment/config.hpp"
#include "experiment/engine_params.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

using nlohmann::json;

json minimal() {
  return json::parse(R"({"name": "t", "sizes": [{"n": [8, 10], "solutions": 2, "compositions_per_solution": 3}]})");
}

std::string error_of(const json& j) {
  try {
    (void)parse_config(j, "c.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsAreFilledIn) {
  const ExperimentConfig c = parse_config(minimal(), "c.json");
  EXPECT_EQ(c.name, "t");
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.engine, "auto");
  EXPECT_EQ(c.k.min, 1);
  EXPECT_EQ(c.k.max, -1);
  EXPECT_EQ(c.shard_cases, 100000u);
  EXPECT_EQ(c.shard_seconds, 30.0);
  EXPECT_EQ(c.output, "results/t");
  ASSERT_EQ(c.sizes.size(), 1u);
  EXPECT_EQ(c.sizes[0].n, (std::vector<Index>{8, 10}));
  EXPECT_EQ(c.resolved["engine"], "auto");
  EXPECT_EQ(c.resolved["k"], json::parse(R"({"min": 1, "max": -1})"));
  EXPECT_EQ(c.resolved["output"], "results/t");
}

TEST(Config, ErrorsNameTheJsonPath) {
  json j = minimal();
  j["shard_case"] = 3;
  EXPECT_EQ(error_of(j),
            "c.json: /shard_case: unknown key (valid keys: name, description, seed, engine, engine_params, instances, "
            "sizes, random_compositions, excluded_diagonals, canonical_compositions, k, time_limit_s, max_nodes, "
            "shard_seconds, shard_cases, output)");
  j = minimal();
  j["seed"] = "x";
  EXPECT_EQ(error_of(j), "c.json: /seed: expected an integer seed >= 0, got \"x\"");
  j = minimal();
  j["sizes"][0]["n"][1] = 0;
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/n/1: expected an integer n >= 1 (at most 2147483647), got 0");
  j = minimal();
  j["sizes"][0]["n"] = -3;
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/n: expected an integer n >= 1 (at most 2147483647), got -3");
  j = minimal();
  j["sizes"][0]["n"] = 3;
  EXPECT_EQ(
      error_of(j),
      "c.json: /sizes/0/n: n = 3 has no solution, so no composition can be derived from one (use n = 1 or n >= 4)");
  j = minimal();
  j["sizes"] = json::array();
  EXPECT_EQ(
      error_of(j),
      "c.json: /sizes: expected a non-empty array of {\"n\", \"solutions\", \"compositions_per_solution\"}, got []");
  j = minimal();
  j["sizes"][0]["n"] = json::array();
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/n: expected a non-empty list of board sizes, got []");
  j = minimal();
  j["sizes"][0]["extra"] = 1;
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/extra: unknown key (valid keys: n, solutions, compositions_per_solution)");
  j = minimal();
  j["sizes"][0].erase("solutions");
  EXPECT_EQ(error_of(j), "c.json: /sizes/0: missing required key \"solutions\"");
  j = minimal();
  j.erase("name");
  EXPECT_EQ(error_of(j), "c.json: /: missing required key \"name\"");
  j = minimal();
  j["engine"] = "nosuch";
  EXPECT_EQ(error_of(j),
            "c.json: /engine: expected one of the engines auto, bitboard, exact, grigoryan, minconflicts, sat, got "
            "\"nosuch\"");
  j = minimal();
  j["engine"] = "bitboard";
  j["sizes"][0]["n"] = {100, 200};
  EXPECT_EQ(error_of(j),
            "c.json: /engine: engine 'bitboard' takes at most 128 free rows, but n = 200 with k = 1 leaves 199 "
            "(at /sizes/0/n/1): raise /k/min or use auto or exact");
  j["k"] = {{"min", 72}, {"max", -1}};
  EXPECT_EQ(error_of(j), "");
  j = minimal();
  j["time_limit_s"] = -1;
  EXPECT_EQ(error_of(j), "c.json: /time_limit_s: expected a number of seconds >= 0, got -1");
  EXPECT_EQ(error_of(json::array()), "c.json: /: expected a JSON object, got []");
}

// The numbers in a text, "10^5" read as 100000.
std::vector<double> numbers_in(const std::string& text) {
  std::vector<double> out;
  static const std::regex number(R"((-?\d+(?:\.\d+)?(?:e-?\d+)?)(?:\^(\d+))?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number); it != std::sregex_iterator(); ++it) {
    const double base = std::stod((*it)[1].str());
    out.push_back((*it)[2].matched ? std::pow(base, std::stod((*it)[2].str())) : base);
  }
  return out;
}

// Every node of the config's JSON Schema (the config table and the engines' parameter rows)
// with a range states that range in its message: each bound below the 64-bit limits appears
// in its `expected` text, so that a range and its text cannot drift apart (as the diags list's
// did: 0..100000 under "a number of diagonals >= 0").
void check_ranges_are_stated(const nlohmann::ordered_json& node, const std::string& at, int& checked) {
  if (node.is_object()) {
    if (node.contains("expected") && node.contains("type") && (node["type"] == "integer" || node["type"] == "number")) {
      const std::string text = node["expected"].get<std::string>();
      const std::vector<double> found = numbers_in(text);
      for (const char* bound : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}) {
        if (!node.contains(bound)) continue;
        const double value = node[bound].get<double>();
        if (std::fabs(value) >= 9.2e18) continue;  // the 64-bit limits: ">= 0" says it
        EXPECT_NE(std::find(found.begin(), found.end(), value), found.end())
            << at << ": " << bound << " " << node[bound].dump() << " is not in \"" << text << "\"";
        ++checked;
      }
    }
    for (const auto& [key, child] : node.items()) check_ranges_are_stated(child, at + "/" + key, checked);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i)
      check_ranges_are_stated(node[i], at + "/" + std::to_string(i), checked);
  }
}

TEST(ConfigTable, EveryRangeIsStatedInItsMessage) {
  int checked = 0;
  check_ranges_are_stated(config_schema(), "", checked);
  EXPECT_GE(checked, 20) << "bounds checked";
  json j = minimal();
  j.erase("sizes");
  j["instances"] = json::parse(R"({"files": ["x.param"], "diags": [100001]})");
  EXPECT_EQ(error_of(j),
            "c.json: /instances/diags/0: expected a number of diagonals 0..10^5, or -1 for all, got 100001");
  j = minimal();
  j["k"] = json::parse(R"({"max": 2147483647})");
  EXPECT_EQ(error_of(j),
            "c.json: /k/max: expected an integer k >= 1 (at most 2147483646), or -1 for n - 1, got 2147483647");
  j = minimal();
  j["shard_seconds"] = 0;
  EXPECT_EQ(error_of(j), "c.json: /shard_seconds: expected a number of seconds > 0, got 0");
}

TEST(Config, KRangeMustFitEveryN) {
  json j = minimal();
  j["k"] = json::parse(R"({"fixed": 9})");
  EXPECT_EQ(error_of(j), "c.json: /k: k range 9..9 has no k in 1..n-1 = 1..7 for n = 8 (at /sizes/0/n/0)");
  j["k"] = json::parse(R"({"min": 2, "max": 9})");
  EXPECT_EQ(error_of(j), "c.json: /k: k range 2..9 is outside 1..n-1 = 1..7 for n = 8 (at /sizes/0/n/0)");
  j["k"] = json::parse(R"({"min": 5, "max": 3})");
  EXPECT_EQ(error_of(j), "c.json: /k: k range 5..3 is empty (min > max)");
  j["k"] = json::parse(R"({"min": 0})");
  EXPECT_EQ(error_of(j), "c.json: /k/min: expected an integer k >= 1 (at most 2147483646), got 0");
  j["k"] = json::parse(R"({"fixed": 7})");
  EXPECT_EQ(parse_config(j, "c.json").k.max, 7);
  j["k"] = json::parse(R"({"min": 2, "max": -1})");
  EXPECT_EQ(parse_config(j, "c.json").k.min, 2);
}

TEST(Config, ResolvedConfigParsesToTheSameConfig) {
  json j = minimal();
  j["sizes"][0]["n"] = json::parse("[1, 8]");
  const ExperimentConfig first = parse_config(j, "c.json");
  const ExperimentConfig again = parse_config(first.resolved, "resolved");
  EXPECT_EQ(again.resolved, first.resolved);
  j["k"] = json::parse(R"({"min": 2})");
  EXPECT_EQ(error_of(j), "c.json: /k: k range 2..0 has no k in 1..n-1 = 1..0 for n = 1 (at /sizes/0/n/0)");
}

TEST(Config, EngineParamsReachTheEngine) {
  json j = minimal();
  j["engine"] = "grigoryan";
  j["engine_params"] = json::parse(R"({"restarts": 10, "block3_stops_at_level2": true, "level2": -1, "level3": 950})");
  const ExperimentConfig c = parse_config(j, "c.json");
  EXPECT_EQ(c.engine_options.grigoryan.restarts, 10u);
  EXPECT_TRUE(c.engine_options.grigoryan.block3_stops_at_level2);
  EXPECT_EQ(c.engine_options.grigoryan.level3, 950);
  EXPECT_EQ(c.engine_options.grigoryan.backtracks_per_attempt, 1000u);  // the paper's default kept
  EXPECT_EQ(c.resolved["engine_params"]["restarts"], 10);
  j["engine_params"] = json::parse(R"({"restart": 10})");
  EXPECT_EQ(error_of(j).substr(0, 83),
            "c.json: /engine_params/restart: unknown parameter (valid: backtracks_per_attempt, r");
  j["engine_params"] = json::parse(R"({"damage_at_z": 1})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/damage_at_z: expected true or false, got 1");
  j["engine"] = "minconflicts";
  j["engine_params"] = json::parse(R"({"noise": 0.1, "max_restarts": 7})");
  const ExperimentConfig m = parse_config(j, "c.json");
  EXPECT_DOUBLE_EQ(m.engine_options.minconflicts.noise, 0.1);
  EXPECT_EQ(m.engine_options.minconflicts.max_restarts, 7u);
  // noise is a probability: 0..1 (before the parameter rows it took any number >= 0, 5 too).
  j["engine_params"] = json::parse(R"({"noise": -1})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/noise: expected a number 0..1, got -1");
  j["engine_params"] = json::parse(R"({"noise": 5})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/noise: expected a number 0..1, got 5");
  // init, a choice, is settable (it was refused as unknown before the parameter rows).
  j["engine_params"] = json::parse(R"({"init": "random"})");
  EXPECT_EQ(parse_config(j, "c.json").engine_options.minconflicts.init, MinConflictsInit::random);
  j["engine_params"] = json::parse(R"({"init": "greedier"})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/init: expected one of greedy, random, got \"greedier\"");
  // The engines with parameters come from the registry (bitboard's least_damage became settable).
  j["engine"] = "sat";
  j["engine_params"] = json::parse(R"({"noise": 0.1})");
  EXPECT_EQ(error_of(j),
            "c.json: /engine_params: engine 'sat' takes no parameters (auto, bitboard, exact, grigoryan and "
            "minconflicts do)");
  // The default engine's (auto's tuning constants became parameters).
  j.erase("engine");
  EXPECT_EQ(
      error_of(j),
      "c.json: /engine_params/noise: unknown parameter (valid: fill_first_n, residual_min, residual_cbrt, refills, "
      "fill_nodes_per_free_row, fill_nodes_base, minconflicts_tries, search_nodes_per_free_row, search_nodes_base, "
      "budget_growth)");
  j["engine_params"] = json::parse(R"({"refills": 4, "residual_cbrt": 20})");
  const ExperimentConfig a = parse_config(j, "c.json");
  EXPECT_EQ(a.engine_options.automatic.refills, 4u);
  EXPECT_EQ(a.engine_options.automatic.residual_cbrt, 20.0);
  j["engine_params"] = json::parse(R"({"refills": 0})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/refills: expected an integer 1..4294967295, got 0");
  j["engine"] = "exact";
  j["engine_params"] = json::parse(R"({"luby_nodes_base": 0})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/luby_nodes_base: expected an integer >= 1, got 0");
  j["engine"] = "bitboard";
  j["engine_params"] = json::parse(R"({"least_damage": true})");
  EXPECT_TRUE(parse_config(j, "c.json").engine_options.bitboard.least_damage);
}

// A JSON value inside the range of `spec` and different from `current` where the range allows.
json other_value(const ParamSpec& spec, const json& current) {
  switch (spec.kind) {
    case ParamKind::flag: return !current.get<bool>();
    case ParamKind::choice:
      return std::string(spec.choices[current == std::string(spec.choices[0]) ? spec.choices.size() - 1 : 0]);
    case ParamKind::real: return std::isinf(spec.max_real) ? spec.min_real + 3.25 : (spec.min_real + spec.max_real) / 4;
    case ParamKind::integer:
      return current == spec.min_integer + 1 ? json(spec.min_integer + 2) : json(spec.min_integer + 1);
  }
  return nullptr;
}

TEST(Config, EveryParameterOfEveryEngineIsSettableAndRangeChecked) {
  std::size_t rows = 0;
  const EngineOptions defaults;
  for (const EngineInfo& e : engine_infos())
    for (const ParamSpec& spec : e.params) {
      ++rows;
      SCOPED_TRACE(e.name + "." + std::string(spec.name));
      json j = minimal();
      j["engine"] = e.name;
      const json def = param_json(spec, spec.get(defaults));
      const json value = other_value(spec, def);
      ASSERT_NE(value, def);
      j["engine_params"] = {{spec.name, value}};
      const ExperimentConfig c = parse_config(j, "c.json");
      EXPECT_EQ(param_json(spec, spec.get(c.engine_options)), value) << "the value reaches the engine's parameters";
      EXPECT_EQ(c.resolved["engine_params"], j["engine_params"]);
      j["engine_params"] = {{spec.name, def}};
      EXPECT_EQ(error_of(j), "") << "the default is in range";
      const std::string refused =
          "c.json: /engine_params/" + std::string(spec.name) + ": expected " + param_expectation(spec) + ", got ";
      j["engine_params"] = {{spec.name, "x"}};
      EXPECT_EQ(error_of(j), refused + "\"x\"");
      if (spec.kind == ParamKind::integer) {
        j["engine_params"] = {{spec.name, spec.min_integer - 1}};
        EXPECT_EQ(error_of(j), refused + std::to_string(spec.min_integer - 1));
        if (spec.max_integer < std::numeric_limits<std::uint64_t>::max()) {
          j["engine_params"] = {{spec.name, spec.max_integer + 1}};
          EXPECT_EQ(error_of(j), refused + std::to_string(spec.max_integer + 1));
        }
      }
      if (spec.kind == ParamKind::real && !std::isinf(spec.max_real)) {
        j["engine_params"] = {{spec.name, spec.max_real + 0.5}};
        EXPECT_EQ(error_of(j), refused + json(spec.max_real + 0.5).dump());
      }
    }
  EXPECT_EQ(rows, 46u) << "10 auto + 6 bitboard + 4 exact + 19 grigoryan + 7 minconflicts parameters";
}
TEST(Config, PlanSizeIsBounded) {
  json j = minimal();
  j["sizes"][0]["compositions_per_solution"] = 100000001;
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/compositions_per_solution: expected an integer 1..10^8, got 100000001");
  j["sizes"][0]["compositions_per_solution"] = 100000000;
  j["sizes"][0]["solutions"] = 100000;
  EXPECT_EQ(error_of(j),
            "c.json: /sizes: the plan has more than 10^12 cases (n count x solutions x compositions_per_solution); "
            "split it into several configs");
  j = minimal();
  j["sizes"][0]["solutions"] = 100000000;
  j["sizes"][0]["compositions_per_solution"] = 1;
  j["shard_cases"] = 1;
  EXPECT_EQ(
      error_of(j),
      "c.json: /shard_cases: the plan would have more than 10^7 shards; raise shard_cases (now 1) or shard_seconds");
  j["k"] = json::parse(R"({"min": 8})");
  j["shard_cases"] = 1000;
  EXPECT_EQ(error_of(j), "c.json: /k: k range 8..7 has no k in 1..n-1 = 1..7 for n = 8 (at /sizes/0/n/0)");
}

TEST(Config, LoadFileErrors) {
  try {
    (void)load_config("/nonexistent.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent.json: cannot open: No such file or directory");
  }
}

// A key given twice is refused where it is, as the table's checks name their paths.
TEST(Config, DuplicateKeysAreNamedByTheirJsonPath) {
  namespace fs = std::filesystem;
  const fs::path file = fs::temp_directory_path() / ("nqc-config-dup-" + std::to_string(::getpid()) + ".json");
  const auto error_of_text = [&](const std::string& text) {
    std::ofstream(file) << text;
    try {
      (void)load_config(file);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string f = file.string();
  EXPECT_EQ(error_of_text(R"({"name": "d", "sizes": [{"n": 8, "solutions": 1, "n": 9}]})"),
            f + ": /sizes/0/n: this key is given twice in its object (expected once)");
  EXPECT_EQ(error_of_text(R"({"name": "d", "sizes": [[1, {}], {"n": [8, 9], "k": {"min": 1, "min": 2}}]})"),
            f + ": /sizes/1/k/min: this key is given twice in its object (expected once)");
  EXPECT_EQ(error_of_text(R"({"seed": 1, "name": "d", "seed": 2})"),
            f + ": /seed: this key is given twice in its object (expected once)");
  fs::remove(file);
}

// configs/nqc-config.schema.json is committed for editors; the config table is its source.
TEST(ConfigTable, CommittedSchemaIsTheGeneratedOne) {
  std::ifstream in(NQC_SOURCE_DIR "/configs/nqc-config.schema.json", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(text.str() == config_schema_text())
      << "configs/nqc-config.schema.json differs from the config table's schema: regenerate it with\n"
         "  build/src/cli/nqc run --config-schema > configs/nqc-config.schema.json";
}

TEST(ConfigTable, SchemaDefaultsAreTheResolvedOnes) {
  const ExperimentConfig c = parse_config(minimal(), "c.json");
  const auto schema = config_schema();
  std::size_t defaults = 0;
  for (const auto& [key, node] : schema["properties"].items())
    if (node.contains("default")) {
      ++defaults;
      ASSERT_TRUE(c.resolved.contains(key)) << key;
      EXPECT_EQ(c.resolved[key].dump(), node["default"].dump()) << key;
    }
  EXPECT_EQ(defaults, 9u);
  EXPECT_EQ(c.seed, 1u);
  EXPECT_EQ(c.shard_cases, 100000u);
  EXPECT_EQ(c.shard_seconds, 30.0);
  EXPECT_EQ(c.time_limit_s, 0.0);
  EXPECT_EQ(c.max_nodes, 0u);
  EXPECT_EQ(schema["properties"]["engine"]["enum"].dump(), nlohmann::ordered_json(engine_names()).dump());
}

TEST(ConfigTable, HelpShowsEveryKeyAndEveryEngineParameter) {
  const std::string help = config_help();
  const auto schema = config_schema();  // kept: items() refers into it
  for (const auto& [key, node] : schema["properties"].items())
    if (key[0] != '$') {
      EXPECT_NE(help.find("\n  " + key), std::string::npos) << key;
    }
  for (const char* sub : {"files", "diags", "n", "solutions", "compositions_per_solution", "min", "max", "fixed"})
    EXPECT_NE(help.find("\n      " + std::string(sub)), std::string::npos) << sub;
  const EngineOptions defaults;
  for (const EngineInfo& e : engine_infos())
    for (const ParamSpec& spec : e.params)
      EXPECT_NE(help.find("\n        " + std::string(spec.name) + " = " + param_json(spec, spec.get(defaults)).dump() +
                          " (" + param_expectation(spec) + ")\n            " + std::string(spec.help) + "\n"),
                std::string::npos)
          << spec.name;
  EXPECT_NE(help.find("\n      sat takes none\n"), std::string::npos);
  EXPECT_NE(help.find("\nPaths: a relative path in a config"), std::string::npos);
}

// One base for a config's relative paths: the config file's directory.
TEST(ConfigFile, RelativePathsAreTakenFromTheConfigsDirectory) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("nqc-config-paths-" + std::to_string(::getpid()));
  fs::create_directories(dir / "sub" / "inst");
  std::ofstream(dir / "sub" / "inst" / "a.txt") << "8\n1 3 0 0 0 0 0 0\n";
  const auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / "sub" / name) << text;
    return dir / "sub" / name;
  };
  const ExperimentConfig sized = load_config(
      write("s.json", R"({"name": "s", "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]})"));
  EXPECT_EQ(sized.output, (dir / "sub" / "results" / "s").string()) << "the default output too";
  EXPECT_EQ(sized.resolved["output"], sized.output);
  const ExperimentConfig up = load_config(
      write("u.json", R"({"name": "u", "output": "../out", "instances": {"files": ["inst/a.txt", "inst"]}})"));
  EXPECT_EQ(up.output, (dir / "out").string());
  EXPECT_EQ(up.instances.files,
            (std::vector<std::string>{(dir / "sub" / "inst" / "a.txt").string(), (dir / "sub" / "inst").string()}));
  EXPECT_EQ(up.resolved["instances"]["files"][0], up.instances.files[0]);
  EXPECT_EQ(up.instances.diags, (std::vector<int>{-1})) << "the default diags";
  EXPECT_FALSE(up.resolved["instances"].contains("diags"))
      << "defaults inside a key stay out of the resolved config (config_hash)";
  const ExperimentConfig absolute = load_config(write(
      "a.json",
      R"({"name": "a", "output": "/tmp/x//y", "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]})"));
  EXPECT_EQ(absolute.output, "/tmp/x//y") << "an absolute output as written";
  // The same config from another working directory: the same paths and resolved config.
  const fs::path cwd = fs::current_path();
  fs::current_path(dir / "sub");
  const ExperimentConfig here = load_config("u.json");
  fs::current_path(cwd);
  EXPECT_EQ(here.output, "../out") << "a relative config keeps the output relative to the working directory";
  EXPECT_EQ(here.instances.files, up.instances.files);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace nqc
