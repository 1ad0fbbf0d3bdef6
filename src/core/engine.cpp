#include "core/engine.hpp"

#include <functional>
#include <stdexcept>

#include "core/engine_options.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/exact.hpp"

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

}  // namespace

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names{"auto", "exact", "grigoryan", "minconflicts"};
  return names;
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options) {
  if (name == "auto")
    return std::make_unique<NamedEngine>(
        "auto", [](const Composition& c, Rng& rng, const Limits& limits) { return complete_auto(c, rng, limits); },
        [](Composition&& c, Rng& rng, const Limits& limits) { return complete_auto(std::move(c), rng, limits); });
  if (name == "exact")
    return std::make_unique<NamedEngine>("exact", [](const Composition& c, Rng& rng, const Limits& limits) {
      return complete_exact(c, rng, limits);
    });
  if (name == "grigoryan") {
    // The paper's algorithm knows only queens; CSPLib's excluded diagonals are not part of it.
    const auto check = [](const Composition& c) {
      if (c.has_excluded_diagonals())
        throw std::invalid_argument("engine 'grigoryan' does not support excluded diagonals (use auto, exact or minconflicts)");
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
  std::string valid;
  for (const auto& n : engine_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown engine '" + std::string(name) + "' (valid engines: " + valid + ")");
}

std::unique_ptr<Engine> make_engine(std::string_view name) { return make_engine(name, EngineOptions{}); }

}  // namespace nqc
