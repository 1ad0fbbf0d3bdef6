#include <gtest/gtest.h>

#include "experiment/config.hpp"
#include "io/errors.hpp"

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
            "c.json: /shard_case: unknown key (valid keys: name, description, seed, engine, engine_params, instances, sizes, k, time_limit_s, "
            "max_nodes, shard_seconds, shard_cases, output)");
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
  EXPECT_EQ(error_of(j),
            "c.json: /sizes/0/n: n = 3 has no solution, so no composition can be derived from one (use n = 1 or n >= 4)");
  j = minimal();
  j["sizes"] = json::array();
  EXPECT_EQ(error_of(j),
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
  EXPECT_EQ(error_of(j), "c.json: /engine: expected one of the engines auto, bitboard, exact, grigoryan, minconflicts, sat, got \"nosuch\"");
  j = minimal();
  j["engine"] = "bitboard";
  j["sizes"][0]["n"] = {100, 200};
  EXPECT_EQ(error_of(j), "c.json: /engine: engine 'bitboard' takes at most 128 free rows, but n = 200 with k = 1 leaves 199 "
                         "(at /sizes/0/n/1): raise /k/min or use auto or exact");
  j["k"] = {{"min", 72}, {"max", -1}};
  EXPECT_EQ(error_of(j), "");
  j = minimal();
  j["time_limit_s"] = -1;
  EXPECT_EQ(error_of(j), "c.json: /time_limit_s: expected a number of seconds >= 0, got -1");
  EXPECT_EQ(error_of(json::array()), "c.json: /: expected a JSON object, got []");
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
  EXPECT_EQ(error_of(j), "c.json: /k/min: expected an integer k >= 1, got 0");
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
  EXPECT_EQ(error_of(j).substr(0, 83), "c.json: /engine_params/restart: unknown parameter (valid: backtracks_per_attempt, r");
  j["engine_params"] = json::parse(R"({"damage_at_z": 1})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/damage_at_z: expected true or false, got 1");
  j["engine"] = "minconflicts";
  j["engine_params"] = json::parse(R"({"noise": 0.1, "max_restarts": 7})");
  const ExperimentConfig m = parse_config(j, "c.json");
  EXPECT_DOUBLE_EQ(m.engine_options.minconflicts.noise, 0.1);
  EXPECT_EQ(m.engine_options.minconflicts.max_restarts, 7u);
  j["engine_params"] = json::parse(R"({"noise": -1})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params/noise: expected a number >= 0, got -1");
  j["engine"] = "auto";
  j["engine_params"] = json::parse(R"({"noise": 0.1})");
  EXPECT_EQ(error_of(j), "c.json: /engine_params: engine 'auto' takes no parameters (grigoryan and minconflicts do)");
}

TEST(Config, PlanSizeIsBounded) {
  json j = minimal();
  j["sizes"][0]["compositions_per_solution"] = 100000001;
  EXPECT_EQ(error_of(j), "c.json: /sizes/0/compositions_per_solution: expected an integer 1..10^8, got 100000001");
  j["sizes"][0]["compositions_per_solution"] = 100000000;
  j["sizes"][0]["solutions"] = 100000;
  EXPECT_EQ(error_of(j),
            "c.json: /sizes: the plan has more than 10^12 cases (n count x solutions x compositions_per_solution); split it into several configs");
  j = minimal();
  j["sizes"][0]["solutions"] = 100000000;
  j["sizes"][0]["compositions_per_solution"] = 1;
  j["shard_cases"] = 1;
  EXPECT_EQ(error_of(j), "c.json: /shard_cases: the plan would have more than 10^7 shards; raise shard_cases (now 1) or shard_seconds");
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

}  // namespace
}  // namespace nqc
