#include "core/engine.hpp"

#include <stdexcept>

#include "core/engines/auto.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/grigoryan.hpp"
#include "core/engines/minconflicts.hpp"

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

// Adapts a free function with the engine signature to the Engine interface.
template <Result (*Complete)(const Composition&, Rng&, const Limits&)>
class FunctionEngine final : public Engine {
 public:
  explicit FunctionEngine(std::string name) : name_(std::move(name)) {}
  [[nodiscard]] std::string name() const override { return name_; }
  Result complete(const Composition& c, Rng& rng, const Limits& limits) override {
    return Complete(c, rng, limits);
  }

 private:
  std::string name_;
};

Result exact_entry(const Composition& c, Rng& rng, const Limits& limits) {
  return complete_exact(c, rng, limits);
}

Result grigoryan_entry(const Composition& c, Rng& rng, const Limits& limits) {
  // The paper's algorithm knows only queens; CSPLib's excluded diagonals are not part of it.
  if (c.has_excluded_diagonals())
    throw std::invalid_argument("engine 'grigoryan' does not support excluded diagonals (use auto, exact or minconflicts)");
  return complete_grigoryan(c, rng, limits);
}

Result minconflicts_entry(const Composition& c, Rng& rng, const Limits& limits) {
  return complete_minconflicts(c, rng, limits);
}

}  // namespace

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names{"auto", "exact", "grigoryan", "minconflicts"};
  return names;
}

std::unique_ptr<Engine> make_engine(std::string_view name) {
  if (name == "auto") return std::make_unique<FunctionEngine<&complete_auto>>("auto");
  if (name == "exact") return std::make_unique<FunctionEngine<&exact_entry>>("exact");
  if (name == "grigoryan") return std::make_unique<FunctionEngine<&grigoryan_entry>>("grigoryan");
  if (name == "minconflicts") return std::make_unique<FunctionEngine<&minconflicts_entry>>("minconflicts");
  std::string valid;
  for (const auto& n : engine_names()) valid += (valid.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown engine '" + std::string(name) + "' (valid engines: " + valid + ")");
}

}  // namespace nqc
