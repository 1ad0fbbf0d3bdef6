// The JSON shape checker and its JSON Schema (experiment/json_shape.hpp), on a small shape of
// every kind; the config's own table is tested in test_config.cpp.
#include <gtest/gtest.h>

#include <stdexcept>

#include "experiment/json_shape.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using Type = JsonShape::Type;

JsonShape leaf(Type type, std::string expected, std::function<void(const json&)> store = {}) {
  JsonShape s;
  s.type = type;
  s.expected = std::move(expected);
  s.store = std::move(store);
  return s;
}

// A shape of every kind; what passes is logged in `stored` as "PATH-less key=value" lines.
struct Fixture {
  std::vector<std::string> stored;
  JsonShape shape;
  Fixture() {
    const auto log = [this](const std::string& key) {
      return [this, key](const json& v) { stored.push_back(key + "=" + v.dump()); };
    };
    JsonShape count = leaf(Type::integer, "a count >= 1", log("count"));
    count.min = 1;
    JsonShape ratio = leaf(Type::number, "a ratio in (0, 1]", log("ratio"));
    ratio.max_number = 1;
    ratio.above_min = true;
    JsonShape mode = leaf(Type::string, "a or b", log("mode"));
    mode.choices = {"a", "b"};
    JsonShape level = leaf(Type::integer, "a level >= 1, or -1", log("level"));
    level.min = 1;
    level.max = 100;
    level.also = -1;
    JsonShape size = leaf(Type::integer, "a size >= 4", log("size"));
    size.min = 4;
    JsonShape list = leaf(Type::array, "a non-empty list", log("list"));
    list.non_empty = true;
    list.items = std::make_shared<const JsonShape>(size);
    JsonShape n = leaf(Type::one_or_list, "a size or a list of sizes");
    n.items = std::make_shared<const JsonShape>(size);
    n.list = std::make_shared<const JsonShape>(list);
    JsonShape word = leaf(Type::string, "a word of digits", log("word"));
    word.non_empty = true;
    word.pattern = "^[0-9]+$";
    shape = leaf(Type::object, "an object", log("object"));
    shape.fields = {{"count", true, {}, "how many", count},
                    {"ratio", false, 0.5, "a share", ratio},
                    {"mode", false, {}, "", mode},
                    {"level", false, {}, "", level},
                    {"n", false, {}, "", n},
                    {"word", false, {}, "", word},
                    {"$note", false, {}, "", leaf(Type::string, "a note")}};
  }
  // The message check_json throws for `value`, or "" when it passes.
  std::string error_of(const json& value) {
    stored.clear();
    try {
      check_json(value, shape, "f.json");
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  }
};

TEST(JsonShape, AcceptsAndStoresInDocumentOrderWithFallbacks) {
  Fixture f;
  EXPECT_EQ(f.error_of(
                json::parse(R"({"count": 18446744073709551615, "mode": "b", "level": -1, "n": [4, 5], "word": "12"})")),
            "");
  EXPECT_EQ(f.stored,
            (std::vector<std::string>{
                "object={\"count\":18446744073709551615,\"level\":-1,\"mode\":\"b\",\"n\":[4,5],\"word\":\"12\"}",
                "count=18446744073709551615", "ratio=0.5", "mode=\"b\"", "level=-1", "list=[4,5]", "size=4", "size=5",
                "word=\"12\""}));
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 2, "n": 4, "level": 100, "ratio": 1})")), "");
}

TEST(JsonShape, NamesThePathAndWhatWasExpected) {
  Fixture f;
  EXPECT_EQ(f.error_of(json::parse("[1]")), "f.json: /: expected an object, got an array of 1");
  EXPECT_EQ(f.error_of(json::parse("{}")), "f.json: /: missing required key \"count\"");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "cuont": 2})")),
            "f.json: /cuont: unknown key (valid keys: count, ratio, mode, level, n, word)");
  EXPECT_EQ(f.error_of(json::parse(R"({"cuont": 2})")),
            "f.json: /cuont: unknown key (valid keys: count, ratio, mode, level, n, word)")
      << "undeclared keys come before missing ones";
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 0})")), "f.json: /count: expected a count >= 1, got 0");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": -1})")), "f.json: /count: expected a count >= 1, got -1");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1.0})")), "f.json: /count: expected a count >= 1, got 1.0");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 18446744073709551616})")),
            "f.json: /count: expected a count >= 1, got 1.8446744073709552e+19");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": {"a": 1}})")), "f.json: /count: expected a count >= 1, got an object");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": {}})")), "f.json: /count: expected a count >= 1, got {}");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "ratio": 1.01})")),
            "f.json: /ratio: expected a ratio in (0, 1], got 1.01");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "ratio": 0})")),
            "f.json: /ratio: expected a ratio in (0, 1], got 0");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "ratio": 1e-300})")), "");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "mode": "c"})")), "f.json: /mode: expected a or b, got \"c\"");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "level": 0})")),
            "f.json: /level: expected a level >= 1, or -1, got 0");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "level": -2})")),
            "f.json: /level: expected a level >= 1, or -1, got -2");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "level": 101})")),
            "f.json: /level: expected a level >= 1, or -1, got 101");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "word": ""})")),
            "f.json: /word: expected a word of digits, got \"\"");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "word": "1a"})")),
            "f.json: /word: expected a word of digits, got \"1a\"");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "$note": 1})")), "f.json: /$note: expected a note, got 1");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "a\nb": 1})")),
            "f.json: /a\\x0ab: unknown key (valid keys: count, ratio, mode, level, n, word)")
      << "one line";
}

TEST(JsonShape, OneOrListReportsTheFormOfTheValue) {
  Fixture f;
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "n": 3})")), "f.json: /n: expected a size >= 4, got 3");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "n": [4, 3]})")), "f.json: /n/1: expected a size >= 4, got 3");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "n": []})")), "f.json: /n: expected a non-empty list, got []");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "n": "x"})")),
            "f.json: /n: expected a size or a list of sizes, got \"x\"");
  EXPECT_EQ(f.error_of(json::parse(R"({"count": 1, "n": 4.5})")),
            "f.json: /n: expected a size or a list of sizes, got 4.5");
}

TEST(JsonShape, SchemaStatesTheSameChecks) {
  Fixture f;
  const ordered_json s = json_schema_of(f.shape);
  EXPECT_EQ(s["type"], "object");
  EXPECT_EQ(s["required"], ordered_json::array({"count"}));
  EXPECT_EQ(s["additionalProperties"], false);
  EXPECT_EQ(s["expected"], "an object");
  const auto& p = s["properties"];
  EXPECT_EQ(
      p["count"].dump(),
      R"({"type":"integer","minimum":1,"maximum":18446744073709551615,"expected":"a count >= 1","description":"how many"})");
  EXPECT_EQ(
      p["ratio"].dump(),
      R"({"type":"number","exclusiveMinimum":0,"maximum":1,"expected":"a ratio in (0, 1]","default":0.5,"description":"a share"})");
  EXPECT_EQ(p["mode"]["enum"], ordered_json::array({"a", "b"}));
  EXPECT_EQ(p["level"]["minimum"], -1);
  EXPECT_EQ(p["level"]["not"].dump(), R"({"const":0})");
  EXPECT_EQ(p["n"]["oneOf"][0]["minimum"], 4);
  EXPECT_EQ(p["n"]["oneOf"][1]["minItems"], 1);
  EXPECT_EQ(p["word"]["pattern"], "^[0-9]+$");
  EXPECT_EQ(p["word"]["minLength"], 1);
  JsonShape gap = leaf(Type::integer, "x");
  gap.min = 5;
  gap.also = -1;
  EXPECT_THROW((void)json_schema_of(gap), std::logic_error) << "only a gap of one value can be stated";
}

TEST(JsonShape, DescribesValuesShortly) {
  EXPECT_EQ(describe_json_value(json::parse("[[1], 2, 3]")), "an array of 3");
  EXPECT_EQ(describe_json_value(json::parse(R"({"a": 1})")), "an object");
  EXPECT_EQ(describe_json_value(json(std::string(50, 'x'))), "\"" + std::string(36, 'x') + "...");
}

}  // namespace
}  // namespace nqc
