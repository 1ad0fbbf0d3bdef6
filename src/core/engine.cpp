#include "core/engine.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "core/engine_options.hpp"
#include "core/engines/auto.hpp"
#include "core/engines/bitboard.hpp"
#include "core/engines/exact.hpp"
#include "core/engines/grigoryan.hpp"
#include "core/engines/minconflicts.hpp"
#include "core/engines/sat.hpp"

namespace nqc {

namespace {

// What the engine's row says it takes: its excluded diagonals and most free rows.
void check(const EngineInfo& info, const Composition& c) {
  const auto list = [](bool (*keep)(const EngineInfo&)) { return " (use " + engine_list(keep, " or ") + ")"; };
  if (!info.excluded_diagonals && c.has_excluded_diagonals())
    throw std::invalid_argument("engine '" + info.name + "' does not support excluded diagonals" +
                                list([](const EngineInfo& e) { return e.excluded_diagonals; }));
  const Index f = c.n() - c.k();
  if (info.max_free_rows != 0 && f > info.max_free_rows)
    throw std::invalid_argument("engine '" + info.name + "' takes at most " + std::to_string(info.max_free_rows) +
                                " free rows, this composition has " + std::to_string(f) +
                                list([](const EngineInfo& e) { return e.complete && e.max_free_rows == 0; }));
}

// An engine of the registry: checks what its row says it takes, then calls `complete`, which
// takes the composition as given (const or rvalue: engines that work in its memory overload both).
template <class F>
class RegisteredEngine final : public Engine {
 public:
  RegisteredEngine(const EngineInfo& info, F complete) : info_(info), complete_(std::move(complete)) {}
  [[nodiscard]] std::string name() const override { return info_.name; }
  Result complete(const Composition& c, Rng& rng, const Limits& limits) override {
    check(info_, c);
    return complete_(c, rng, limits);
  }
  Result complete(Composition&& c, Rng& rng, const Limits& limits) override {
    check(info_, c);
    return complete_(std::move(c), rng, limits);
  }

 private:
  const EngineInfo& info_;
  F complete_;
};

// The factory of EngineInfo::make for the call CALL of (c, rng, limits) and the options `p`
// (c: a const or rvalue composition, std::move(c) keeps which).
#define NQC_ENGINE_FACTORY(CALL)                                                                   \
  [](const EngineInfo& self, [[maybe_unused]] const EngineOptions& p) -> std::unique_ptr<Engine> { \
    auto f = [p](auto&& c, Rng& rng, const Limits& limits) {                                       \
      (void)p;                                                                                     \
      return CALL;                                                                                 \
    };                                                                                             \
    return std::make_unique<RegisteredEngine<decltype(f)>>(self, std::move(f));                    \
  }

const ParamSpec kAutoParams[] = {NQC_AUTO_PARAMS(NQC_PARAM_ROW, automatic)};
const ParamSpec kBitboardParams[] = {NQC_BITBOARD_PARAMS(NQC_PARAM_ROW, bitboard)};
const ParamSpec kExactParams[] = {NQC_EXACT_PARAMS(NQC_PARAM_ROW, exact)};
const ParamSpec kGrigoryanParams[] = {NQC_GRIGORYAN_PARAMS(NQC_PARAM_ROW, grigoryan)};
const ParamSpec kMinConflictsParams[] = {NQC_MINCONFLICTS_PARAMS(NQC_PARAM_ROW, minconflicts)};

}  // namespace

double CaseCost::seconds(Index n) const {
  return base_s + at_1000_s * std::pow(static_cast<double>(n) / 1000.0, exponent);
}

void check_engine_codes(std::span<const EngineInfo> infos) {
  std::vector<const EngineInfo*> by_code(infos.size(), nullptr);
  for (const EngineInfo& e : infos) {
    if (e.code >= infos.size() || by_code[e.code] != nullptr)
      throw std::logic_error("engine registry: engine '" + e.name + "' has code " + std::to_string(e.code) +
                             (e.code >= infos.size() ? ", expected 0.." + std::to_string(infos.size() - 1)
                                                     : ", the code of '" + by_code[e.code]->name + "' too"));
    by_code[e.code] = &e;
  }
}

const std::vector<EngineInfo>& engine_infos() {
  // name, code (result files store it: never renumber or reuse one; a new engine takes the next
  // free code), complete, excluded diagonals, max free rows, summary, parameters, factory,
  // cost per case (default: auto's)
  static const std::vector<EngineInfo> infos{
      {"auto", 0, true, true, 0,
       "random fill, min-conflicts, then a complete search of the residual (words when it fits)", kAutoParams,
       NQC_ENGINE_FACTORY(complete_auto(std::move(c), rng, limits, p.automatic))},
      {"bitboard", 1, true, true, kBitboardMaxFree,
       "complete search on machine words (rows and columns of fewest candidates, forward checking)", kBitboardParams,
       NQC_ENGINE_FACTORY(complete_bitboard(c, rng, limits, p.bitboard))},
      {"exact", 2, true, true, 0, "complete search on the residual board (MRV, forward checking, restarts)",
       kExactParams, NQC_ENGINE_FACTORY(complete_exact(c, rng, limits, {}, p.exact))},
      // The paper's algorithm knows only queens (no excluded diagonals). Its cost: flat near 250 us
      // up to n = 300, then about n^0.88 (BENCHMARKS.md, "Cost estimates").
      {"grigoryan", 3, false, false, 0, "the paper's randomized algorithm with bounded backtracking ([Grigoryan])",
       kGrigoryanParams, NQC_ENGINE_FACTORY(complete_grigoryan(std::move(c), rng, limits, p.grigoryan)),
       CaseCost{2.5e-4, 2.7e-4, 0.88}},
      {"minconflicts", 4, false, true, 0, "min-conflicts local search ([Minton92]) with the composition's rows fixed",
       kMinConflictsParams, NQC_ENGINE_FACTORY(complete_minconflicts(c, rng, limits, p.minconflicts))},
      {"sat", 5, true, true, kSatMaxFree, "CaDiCaL on a CNF of the residual board", std::span<const ParamSpec>(),
       NQC_ENGINE_FACTORY(complete_sat(c, rng, limits))},
  };
  [[maybe_unused]] static const bool checked = (check_engine_codes(infos), true);
  return infos;
}

const EngineInfo& engine_info(std::string_view name) {
  for (const auto& e : engine_infos())
    if (e.name == name) return e;
  throw std::invalid_argument("unknown engine '" + std::string(name) +
                              "' (valid engines: " + engine_list([](const EngineInfo&) { return true; }) + ")");
}

const EngineInfo* engine_of_code(std::uint8_t code) {
  for (const auto& e : engine_infos())
    if (e.code == code) return &e;
  return nullptr;
}

const std::vector<std::string>& engine_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& e : engine_infos()) v.push_back(e.name);
    return v;
  }();
  return names;
}

std::string engine_list(bool (*keep)(const EngineInfo&), std::string_view last) {
  std::vector<std::string_view> kept;
  for (const auto& e : engine_infos())
    if (keep(e)) kept.push_back(e.name);
  std::string list;
  for (std::size_t i = 0; i < kept.size(); ++i)
    list.append(i == 0 ? "" : (i + 1 == kept.size() ? last : std::string_view(", "))).append(kept[i]);
  return list;
}

std::unique_ptr<Engine> make_engine(std::string_view name, const EngineOptions& options) {
  const EngineInfo& info = engine_info(name);
  return info.make(info, options);
}

std::unique_ptr<Engine> make_engine(std::string_view name) { return make_engine(name, EngineOptions{}); }

}  // namespace nqc
