// The JSON Schema validator and configs/nqc-config.schema.json (compiled in).
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/engine.hpp"
#include "experiment/config.hpp"
#include "experiment/json_schema.hpp"
#include "io/errors.hpp"

namespace nqc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// The message validate_json throws for `value`, or "" when it passes.
std::string error_of(const json& value, const ordered_json& schema) {
  try {
    validate_json(value, schema, "f.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const ordered_json kSchema = ordered_json::parse(R"({
  "type": "object", "expected": "an object",
  "properties": {
    "count": {"type": "integer", "minimum": 1, "maximum": 18446744073709551615, "expected": "a count >= 1"},
    "ratio": {"type": "number", "minimum": 0, "maximum": 1},
    "mode": {"enum": ["a", "b"], "expected": "a or b"},
    "nonzero": {"type": "integer", "not": {"const": 0}, "expected": "a non-zero integer"},
    "n": {"oneOf": [{"$ref": "#/definitions/size"},
                    {"type": "array", "minItems": 1, "items": {"$ref": "#/definitions/size"}, "expected": "a non-empty list"}],
          "expected": "a size or a list of sizes"},
    "word": {"type": "string", "minLength": 2, "expected": "two letters or more"},
    "kind": {"type": "string"},
    "width": {"type": "integer"}
  },
  "required": ["count"],
  "additionalProperties": false,
  "if": {"properties": {"kind": {"const": "box"}}, "required": ["kind"]},
  "then": {"required": ["width"]},
  "definitions": {"size": {"type": "integer", "minimum": 4, "expected": "a size >= 4"}}
})");

TEST(JsonSchema, AcceptsValidValues) {
  EXPECT_EQ(error_of(json::parse(R"({"count": 1})"), kSchema), "");
  EXPECT_EQ(error_of(json::parse(R"({"count": 18446744073709551615, "ratio": 0.5, "mode": "b", "nonzero": -3,
                                     "n": [4, 5], "word": "ab", "kind": "box", "width": 2})"), kSchema), "");
  EXPECT_EQ(error_of(json::parse(R"({"count": 2, "n": 4, "kind": "ball"})"), kSchema), "");
}

TEST(JsonSchema, NamesThePathAndWhatWasExpected) {
  EXPECT_EQ(error_of(json::parse("[1]"), kSchema), "f.json: /: expected an object, got an array of 1");
  EXPECT_EQ(error_of(json::parse("{}"), kSchema), "f.json: /: missing required key \"count\"");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "cuont": 2})"), kSchema),
            "f.json: /cuont: unknown key (valid keys: count, ratio, mode, nonzero, n, word, kind, width)");
  EXPECT_EQ(error_of(json::parse(R"({"count": 0})"), kSchema), "f.json: /count: expected a count >= 1, got 0");
  EXPECT_EQ(error_of(json::parse(R"({"count": -1})"), kSchema), "f.json: /count: expected a count >= 1, got -1");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1.5})"), kSchema), "f.json: /count: expected a count >= 1, got 1.5");
  EXPECT_EQ(error_of(json::parse(R"({"count": 18446744073709551616})"), kSchema),
            "f.json: /count: expected a count >= 1, got 1.8446744073709552e+19");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "ratio": 1.01})"), kSchema),
            "f.json: /ratio: expected a value of type number, got 1.01");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "mode": "c"})"), kSchema), "f.json: /mode: expected a or b, got \"c\"");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "nonzero": 0})"), kSchema),
            "f.json: /nonzero: expected a non-zero integer, got 0");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "word": "a"})"), kSchema),
            "f.json: /word: expected two letters or more, got \"a\"");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "kind": "box"})"), kSchema), "f.json: /: missing required key \"width\"");
}

TEST(JsonSchema, OneOfReportsTheBranchOfTheValuesType) {
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "n": 3})"), kSchema), "f.json: /n: expected a size >= 4, got 3");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "n": [4, 3]})"), kSchema), "f.json: /n/1: expected a size >= 4, got 3");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "n": []})"), kSchema), "f.json: /n: expected a non-empty list, got []");
  EXPECT_EQ(error_of(json::parse(R"({"count": 1, "n": "x"})"), kSchema),
            "f.json: /n: expected a size or a list of sizes, got \"x\"");
}

TEST(JsonSchema, PatternIsAnUnanchoredEcmaScriptSearch) {
  const auto schema = ordered_json::parse(R"({"type": "string", "pattern": "[0-9]+$", "expected": "digits at the end"})");
  EXPECT_EQ(error_of(json("run-12"), schema), "");
  EXPECT_EQ(error_of(json("12-run"), schema), "f.json: /: expected digits at the end, got \"12-run\"");
}

TEST(JsonSchema, RefusesKeywordsItDoesNotImplement) {
  const auto schema = ordered_json::parse(R"({"type": "string", "maxLength": 3})");
  EXPECT_THROW(validate_json(json("a"), schema, "f.json"), std::logic_error);
  const auto dangling = ordered_json::parse(R"({"$ref": "#/definitions/none"})");
  EXPECT_THROW(validate_json(json(1), dangling, "f.json"), std::logic_error);
}

TEST(ConfigSchema, EngineEnumIsTheEngineList) {
  const auto& e = config_schema()["properties"]["engine"]["enum"];
  std::vector<std::string> names;
  for (const auto& x : e) names.push_back(x.get<std::string>());
  EXPECT_EQ(names, engine_names());
}

TEST(ConfigSchema, KeysAndDefaultsAreTheOptionTables) {
  const std::string help = config_help();
  const json minimal = json::parse(R"({"name": "t", "sizes": [{"n": 8, "solutions": 1, "compositions_per_solution": 1}]})");
  const ExperimentConfig cfg = parse_config(minimal, "t.json");
  std::size_t keys = 0;
  for (const auto& [key, node] : config_schema()["properties"].items()) {
    if (key == "$schema") continue;
    ++keys;
    EXPECT_NE(help.find("\n  " + key), std::string::npos) << key << " is in the schema but not in the option table";
    if (node.contains("default")) {
      ASSERT_TRUE(cfg.resolved.contains(key)) << key;
      EXPECT_EQ(cfg.resolved[key], json::parse(node["default"].dump())) << key << ": schema and option table defaults differ";
    }
  }
  std::size_t options = 0;
  for (std::size_t at = help.find("\n  "); at != std::string::npos; at = help.find("\n  ", at + 1))
    if (help[at + 3] != ' ') ++options;
  EXPECT_EQ(keys, options) << help;
}

TEST(ConfigSchema, ParseConfigValidatesAgainstIt) {
  const json bad = json::parse(R"({"name": "t", "sizes": [{"n": [8, 0], "solutions": 1, "compositions_per_solution": 1}]})");
  try {
    (void)parse_config(bad, "t.json");
    FAIL() << "n = 0 was accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "t.json: /sizes/0/n/1: expected an integer n >= 1 (at most 2147483647), got 0");
  }
}

}  // namespace
}  // namespace nqc
