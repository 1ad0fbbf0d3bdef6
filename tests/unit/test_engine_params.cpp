// Every parameter row of every engine (the registry's rows: a new parameter is covered by
// itself) at its MIN and at its MAX: the engine returns on small compositions, counts-bounded
// (max_nodes; a hang is the test's timeout, no clock here), and honours the stop flag. And the
// registry's engine codes, which result files store.
#include <gtest/gtest.h>

#include "brute_force.hpp"
#include "printers.hpp"

#include <atomic>
#include <cmath>
#include <stdexcept>
#include <limits>
#include <string>
#include <vector>

#include "core/challenge.hpp"
#include "core/counting.hpp"
#include "core/engine.hpp"
#include "core/engine_options.hpp"
#include "core/sampling.hpp"
#include "core/verifier.hpp"

namespace nqc {
namespace {

struct Case {
  std::string what;
  Composition composition;
  bool completable = true;
};

Composition derived(Index n, Index k, std::uint64_t seed) {
  Rng rng(seed);
  return derive_composition(random_solution(n, rng), k, rng);
}

// The second composition of a challenge (a free row without free cell: no completion).
Composition challenge(Index n, Index free_rows) {
  for (std::uint64_t seed = 1; seed < 100; ++seed) {
    Rng rng(seed);
    Composition c = random_solution(n, rng);
    try {
      const Challenge ch = make_challenge(c, free_rows, rng);
      apply_changes(c, ch);
      return c;
    } catch (const std::runtime_error&) {
      // no swap fitted: the next seed
    }
  }
  ADD_FAILURE() << "no challenge of n = " << n;
  return Composition(n);
}

// A random consistent composition of n and k queens without completion (counted).
Composition without_completion(Index n, Index k) {
  Rng rng(3);
  for (int tries = 0; tries < 1000; ++tries) {
    const Composition c = testing::random_consistent(n, k, rng);
    if (c.k() == k && count_completions(c, Limits{}).completions == 0) return c;
  }
  ADD_FAILURE() << "no composition without completion of n = " << n;
  return Composition(n);
}

// Small compositions that reach the engines' branches: n below 7 (grigoryan's regressions give
// a base level of n there), a full board, one free row, both sides of auto's residual target.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = [] {
    Composition corner(4);
    corner.q[0] = 1;  // Q(4)'s two solutions have no corner queen
    const Composition full = derived(8, 8, 5);
    std::vector<Case> v{
        {"n = 1, empty", Composition(1)},
        {"n = 4, a corner queen (no completion)", corner, false},
        {"n = 6, k = 1", derived(6, 1, 1)},
        {"n = 8, a full board", full},
        {"n = 12, k = 3", derived(12, 3, 2)},
        {"n = 12, k = 4, no completion", without_completion(12, 4), false},
        {"n = 100, k = 20", derived(100, 20, 3)},
        {"n = 100, k = 99 (one free row)", derived(100, 99, 4)},
        {"n = 100, 40 free rows, a dead row", challenge(100, 40), false},
        {"n = 400, 150 free rows, a dead row", challenge(400, 150), false},
    };
    EXPECT_EQ(v[3].composition.k(), 8);
    EXPECT_EQ(testing::brute_force_completions(v[1].composition), 0u);
    return v;
  }();
  return all;
}

// The engine's own limit (its "no completion"), if it has one.
StopReason own_limit(const EngineInfo& e) {
  if (e.name == "grigoryan") return StopReason::grigoryan_limits;
  if (e.name == "minconflicts") return StopReason::minconflicts_limits;
  return StopReason::none;
}

// The value of a row at its MIN and at its MAX (flags: false and true; choices: the first and
// the last; a real without upper bound: the largest double, which a config can write).
std::vector<std::pair<std::string, ParamValue>> extremes(const ParamSpec& spec) {
  switch (spec.kind) {
    case ParamKind::flag: return {{"false", false}, {"true", true}};
    case ParamKind::choice:
      return {{std::string(spec.choices.front()), std::uint64_t{0}},
              {std::string(spec.choices.back()), static_cast<std::uint64_t>(spec.choices.size() - 1)}};
    case ParamKind::integer: {
      const ParamValue lo = spec.min_integer < 0 ? ParamValue(spec.min_integer)
                                                 : ParamValue(static_cast<std::uint64_t>(spec.min_integer));
      return {{std::to_string(spec.min_integer), lo}, {std::to_string(spec.max_integer), spec.max_integer}};
    }
    case ParamKind::real: {
      const double hi = std::isinf(spec.max_real) ? std::numeric_limits<double>::max() : spec.max_real;
      return {{std::to_string(spec.min_real), spec.min_real}, {std::to_string(hi), hi}};
    }
  }
  return {};
}

// One engine call and what it may answer: solved (verified), infeasible only from a complete
// engine on a composition without completion, or gave_up with `limit` or the engine's own.
void run_and_check(const EngineInfo& e, const EngineOptions& options, const Case& c, const Limits& limits,
                   StopReason limit) {
  if (e.max_free_rows != 0 && c.composition.n() - c.composition.k() > e.max_free_rows) return;
  SCOPED_TRACE(c.what);
  Rng rng(11);
  const Result r = e.make(e, options)->complete(c.composition, rng, limits);
  switch (r.outcome) {
    case Outcome::solved:
      EXPECT_TRUE(is_solution(r.solution) && extends(r.solution, c.composition));
      EXPECT_EQ(r.limit, StopReason::none);
      break;
    case Outcome::infeasible:
      EXPECT_TRUE(e.complete && !c.completable);
      EXPECT_EQ(r.limit, StopReason::none);
      break;
    case Outcome::gave_up:
      if (r.limit != limit) {
        EXPECT_EQ(r.limit, own_limit(e));
      }
      EXPECT_NE(r.limit, StopReason::none);
      break;
  }
}

// Every row's MIN and MAX in turn (the other rows at their defaults), and the defaults.
template <class Run>
std::size_t for_each_extreme(const EngineInfo& e, Run&& run) {
  std::size_t settings = 0;
  run(EngineOptions{});
  for (const ParamSpec& spec : e.params)
    for (const auto& [text, value] : extremes(spec)) {
      SCOPED_TRACE(e.name + " " + std::string(spec.name) + " = " + text);
      EngineOptions options;
      spec.set(options, value);
      run(options);
      ++settings;
    }
  return settings;
}

class EveryEngine : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryEngine, EveryParameterAtItsMinAndMaxReturnsWithinMaxNodes) {
  const EngineInfo& e = engine_info(GetParam());
  const Limits limits{50000, 0, nullptr};
  const std::size_t settings = for_each_extreme(e, [&](const EngineOptions& options) {
    for (const Case& c : cases()) run_and_check(e, options, c, limits, StopReason::max_nodes);
  });
  EXPECT_EQ(settings, 2 * e.params.size());
}

TEST_P(EveryEngine, EveryParameterAtItsMinAndMaxHonoursTheStopFlag) {
  const EngineInfo& e = engine_info(GetParam());
  const std::atomic<bool> stop{true};
  const Limits limits{0, 0, &stop};
  for_each_extreme(e, [&](const EngineOptions& options) {
    for (const Case& c : cases()) run_and_check(e, options, c, limits, StopReason::stop);
  });
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryEngine, ::testing::ValuesIn(engine_names()),
                         [](const ::testing::TestParamInfo<std::string>& engine) { return engine.param; });

TEST(EngineParams, EveryRowIsCovered) {
  std::size_t rows = 0;
  for (const EngineInfo& e : engine_infos()) rows += e.params.size();
  EXPECT_EQ(rows, 46u) << "10 auto + 6 bitboard + 4 exact + 19 grigoryan + 7 minconflicts: 92 settings";
}

// Result files store the codes: they are the registry's, unique, and never change.
TEST(EngineRegistry, CodesAreStableAndUnique) {
  const std::vector<std::pair<std::string, std::uint8_t>> stored{{"auto", 0},      {"bitboard", 1},     {"exact", 2},
                                                                 {"grigoryan", 3}, {"minconflicts", 4}, {"sat", 5}};
  EXPECT_EQ(engine_infos().size(), stored.size());
  for (const auto& [name, code] : stored) {
    EXPECT_EQ(engine_info(name).code, code) << name;
    ASSERT_NE(engine_of_code(code), nullptr);
    EXPECT_EQ(engine_of_code(code)->name, name);
  }
  EXPECT_EQ(engine_of_code(6), nullptr);
  EXPECT_NO_THROW(check_engine_codes(engine_infos()));
  std::vector<EngineInfo> twice(engine_infos().begin(), engine_infos().end());
  twice[5].code = 1;
  try {
    check_engine_codes(twice);
    ADD_FAILURE() << "a duplicate code passed";
  } catch (const std::logic_error& x) {
    EXPECT_STREQ(x.what(), "engine registry: engine 'sat' has code 1, the code of 'bitboard' too");
  }
  twice[5].code = 6;
  try {
    check_engine_codes(twice);
    ADD_FAILURE() << "a code beyond the registry passed";
  } catch (const std::logic_error& x) {
    EXPECT_STREQ(x.what(), "engine registry: engine 'sat' has code 6, expected 0..5");
  }
}

// The stop reasons' codes are what result files store.
TEST(StopReasons, CodesAndNamesAreTheStoredOnes) {
  const std::vector<std::pair<StopReason, std::string>> stored{
      {StopReason::none, "none"},
      {StopReason::max_nodes, "max_nodes"},
      {StopReason::time_limit, "time_limit"},
      {StopReason::stop, "stop"},
      {StopReason::grigoryan_limits, "grigoryan_limits"},
      {StopReason::minconflicts_limits, "minconflicts_limits"}};
  EXPECT_EQ(std::size(kStopReasonNames), stored.size());
  for (std::size_t code = 0; code < stored.size(); ++code) {
    EXPECT_EQ(static_cast<std::size_t>(stored[code].first), code);
    EXPECT_EQ(to_string(stored[code].first), stored[code].second);
  }
  EXPECT_EQ(to_string(static_cast<StopReason>(6)), "?");
}

}  // namespace
}  // namespace nqc
