#include "core/engine.hpp"

#include <functional>
#include <stdexcept>

#include "core/engine_options.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/sat.hpp"

namespace nqc {

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::solved: return "solved";
    case Outcome::infeasible: return "infeasible";
    case Outcome::gave_up: return "gave_up";
  }
  return "?";
}

namespace {

// An engine that calls a function with the engine signature.
class NamedEngine final : public Engine {
 public:
  using Complete = std::function<Result(const Composition&, Rng&, const Limits&)>;
  using Consume = std::function<Result(Composition&&, Rng&, const Limits&)>;
  NamedEngine(std::string name, Complete complete, Consume consume = {})
      : name_(std::move(name)), complete_(std::move(complete)), consume_(std::move(consume)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  Result complete(const Composition& c, Rng& rng, const Limits& limits) override { return complete_(c, rng, limits); }
  Result complete(Composition&& c, Rng& rng, const Limits& limits) override {
    return consume_ ? consume_(std::move(c), rng, limits) : complete_(c, rng, limits);
  }

 private:
  std::string name_;
  Complete complete_;
  Consume consume_;
};

// The residual must fit the engine (EngineInfo::max_free_rows).
void check_free_rows(const EngineInfo& info, const Composition& c) {
  const Index f = c.n() - c.k();
  if (info.max_free_rows != 0 && f > info.max_free_rows)
    throw std::invalid_argument("engine '" + info.name + "' takes at most " + std::to_string(info.max_free_rows) +
                                " free rows, this composition has " + std::to_string(f) + " (use auto or exact)");
}

}  // namespace

const std::vector<EngineInfo>& engine_infos() {
  static const std::vector<EngineInfo> infos{
      {"auto", true, 0, "random fill, min-conflicts, then a complete search of the residual (words when it fits)"},
      {"bitboard", true, kBitboardMaxFree, "complete search on machine words (MRV, forward checking, restarts)"},
      {"exact", true, 0, "complete search on the residual board (MRV, forward checking, restarts)"},
      {"grigoryan", false, 0, "the paper's randomized algorithm with bounded backtracking ([Grigoryan])"},
      {"minconflicts", false, 0, "min-conflicts local search ([Minton92]) with the composition's rows fixed"},
      {"sat", true, kSatMaxFree, "CaDiCaL on a CNF of the residual board"},
  };
  return infos;
}

const EngineInfo& engine_info(std::string_view name) {
  for (const auto& e : engine_infos())
    if (e.name == name) return e;
  std::string valid;
  for (const auto& e : engine_infos()) valid += (valid.empty() ? "" : ", ") + e.name;
  throw std::invalid_argument("unknown engine '" + std::string(name) + "' (valid engines: " + valid + ")");
}

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& e : engine_infos()) v.push_back(e.name);
    return v;
  }();
  return names;
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options) {
  const EngineInfo& info = engine_info(name);
  if (name == "auto")
    return std::make_unique<NamedEngine>(
        "auto", [](const Composition& c, Rng& rng, const Limits& limits) { return complete_auto(c, rng, limits); },
        [](Composition&& c, Rng& rng, const Limits& limits) { return complete_auto(std::move(c), rng, limits); });
  if (name == "bitboard")
    return std::make_unique<NamedEngine>("bitboard", [info](const Composition& c, Rng& rng, const Limits& limits) {
      check_free_rows(info, c);
      return complete_bitboard(c, rng, limits);
    });
  if (name == "exact")
    return std::make_unique<NamedEngine>("exact", [](const Composition& c, Rng& rng, const Limits& limits) {
      return complete_exact(c, rng, limits);
    });
  if (name == "grigoryan") {
    // The paper's algorithm knows only queens; CSPLib's excluded diagonals are not part of it.
    const auto check = [](const Composition& c) {
      if (c.has_excluded_diagonals())
        throw std::invalid_argument("engine 'grigoryan' does not support excluded diagonals (use auto, bitboard, exact, minconflicts or sat)");
    };
    return std::make_unique<NamedEngine>(
        "grigoryan",
        [p = options.grigoryan, check](const Composition& c, Rng& rng, const Limits& limits) {
          check(c);
          return complete_grigoryan(c, rng, limits, p);
        },
        [p = options.grigoryan, check](Composition&& c, Rng& rng, const Limits& limits) {
          check(c);
          return complete_grigoryan(std::move(c), rng, limits, p);
        });
  }
  if (name == "minconflicts")
    return std::make_unique<NamedEngine>("minconflicts", [p = options.minconflicts](const Composition& c, Rng& rng, const Limits& limits) {
      return complete_minconflicts(c, rng, limits, p);
    });
  if (name == "sat")
    return std::make_unique<NamedEngine>("sat", [info](const Composition& c, Rng& rng, const Limits& limits) {
      check_free_rows(info, c);
      return complete_sat(c, rng, limits);
    });
  throw std::logic_error("engine '" + info.name + "' is declared but not built");
}

std::unique_ptr<Engine> make_engine(std::string_view name) { return make_engine(name, EngineOptions{}); }

}  // namespace nqc
