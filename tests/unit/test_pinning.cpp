// experiment/pinning: DIR/plan.json written and read back, its damage refused, and what
// changed between two plans named.
#include "experiment/pinning.hpp"

#include <gtest/gtest.h>

#include <string>

#include "experiment/config.hpp"
#include "system/errors.hpp"

namespace nqc {
namespace {

PinnedPlan pinned() {
  const ExperimentConfig config = parse_config(nlohmann::json::parse(R"({"name": "t", "shard_cases": 10,
      "sizes": [{"n": [8, 1000], "solutions": 5, "compositions_per_solution": 4}]})"),
                                               "t.json");
  return pin_plan(make_plan(config), "112e9db0a0064004");
}

// The reason parse_pinned_plan gives for `text`, or "" when it reads.
std::string refusal(const std::string& text) {
  try {
    (void)parse_pinned_plan(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(Pinning, TheFileReadsBackAsThePlan) {
  const PinnedPlan p = pinned();
  const std::string text = plan_file_text(p, "0.1.0");
  EXPECT_EQ(parse_pinned_plan(text).hash(), p.hash());
  EXPECT_EQ(parse_pinned_plan(text).cases, 40u);
  EXPECT_NE(text.find("\n  \"nqc_version\": \"0.1.0\",\n"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(Pinning, DamageIsRefusedWithItsReason) {
  const std::string text = plan_file_text(pinned(), "0.1.0");
  EXPECT_EQ(refusal(""), "empty");
  EXPECT_EQ(refusal(text.substr(0, 40)), "not valid JSON at byte 41");
  EXPECT_EQ(refusal(replaced(text, "\"cases\": 40", "\"cases\": 1e999")), "not valid JSON (a number out of range)");
  EXPECT_EQ(refusal(replaced(text, "  \"cases\"", "\t\"cases\"")), "not as nqc writes it");
  EXPECT_EQ(refusal(replaced(text, "\"cases\": 40", "\"cases\": 41")), "its plan_hash does not match its content");
  EXPECT_EQ(refusal(replaced(text, "nqc_version", "nqc_versioo")), "no 'nqc_version'");
  EXPECT_EQ(refusal(replaced(text, "  \"layout\"", "  \"l\": 1,\n  \"layout\"")), "unexpected key 'l'");
  EXPECT_EQ(refusal(replaced(text, "\"0.1.0\"", "\"0.1.p\"")), "nqc_version '0.1.p' is not a version");
}

TEST(Pinning, AChangeIsNamed) {
  const PinnedPlan then = pinned();
  EXPECT_EQ(plan_change(then, then), "");
  PinnedPlan now = then;
  now.config_hash = "0000000000000001";
  EXPECT_EQ(plan_change(then, now), "the config changed (config_hash 112e9db0a0064004 then, 0000000000000001 now)");
  now = then;
  now.case_generation = then.case_generation + 1;
  EXPECT_NE(plan_change(then, now).find("this nqc makes cases of generation"), std::string::npos);
  PinnedPlan with = then;
  with.instances = {{"/d/a.txt", 10, "00000000000000aa"}, {"/d/b.txt", 12, "00000000000000bb"}};
  PinnedPlan added = with;
  added.instances.push_back({"/d/c.txt", 9, "00000000000000cc"});
  EXPECT_EQ(plan_change(with, added), "the instance file /d/c.txt was added (2 files then, 3 now)");
  EXPECT_EQ(plan_change(added, with), "the instance file /d/c.txt was removed (3 files then, 2 now)");
  PinnedPlan edited = with;
  edited.instances[1] = {"/d/b.txt", 13, "00000000000000bc"};
  EXPECT_EQ(plan_change(with, edited),
            "the instance file /d/b.txt changed (12 bytes, xxh64 00000000000000bb then; 13 bytes, xxh64 "
            "00000000000000bc now)");
}

}  // namespace
}  // namespace nqc
