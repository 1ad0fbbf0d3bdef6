#include "core/engine.hpp"

#include <cmath>
#include <functional>
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

// The residual must fit the engine (EngineInfo::max_free_rows).
void check_free_rows(const EngineInfo& info, const Composition& c) {
  const Index f = c.n() - c.k();
  if (info.max_free_rows != 0 && f > info.max_free_rows)
    throw std::invalid_argument(
        "engine '" + info.name + "' takes at most " + std::to_string(info.max_free_rows) +
        " free rows, this composition has " + std::to_string(f) + " (use " +
        engine_list([](const EngineInfo& e) { return e.complete && e.max_free_rows == 0; }, " or ") + ")");
}

// Engines that know only queens refuse CSPLib's excluded diagonals (EngineInfo::excluded_diagonals).
void check_excluded_diagonals(const EngineInfo& info, const Composition& c) {
  if (!info.excluded_diagonals && c.has_excluded_diagonals())
    throw std::invalid_argument("engine '" + info.name + "' does not support excluded diagonals (use " +
                                engine_list([](const EngineInfo& e) { return e.excluded_diagonals; }, " or ") + ")");
}

// An engine of the registry: checks what its row says it takes, then calls its function.
class RegisteredEngine final : public Engine {
 public:
  using Complete = std::function<Result(const Composition&, Rng&, const Limits&)>;
  using Consume = std::function<Result(Composition&&, Rng&, const Limits&)>;
  RegisteredEngine(const EngineInfo& info, Complete complete, Consume consume = {})
      : info_(info), complete_(std::move(complete)), consume_(std::move(consume)) {}
  [[nodiscard]] std::string name() const override { return info_.name; }
  Result complete(const Composition& c, Rng& rng, const Limits& limits) override {
    check(c);
    return complete_(c, rng, limits);
  }
  Result complete(Composition&& c, Rng& rng, const Limits& limits) override {
    check(c);
    return consume_ ? consume_(std::move(c), rng, limits) : complete_(c, rng, limits);
  }

 private:
  void check(const Composition& c) const {
    check_excluded_diagonals(info_, c);
    check_free_rows(info_, c);
  }
  const EngineInfo& info_;
  Complete complete_;
  Consume consume_;
};

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
       [](const EngineInfo& self, const EngineOptions& o) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(
             self,
             [p = o.automatic](const Composition& c, Rng& rng, const Limits& limits) {
               return complete_auto(c, rng, limits, p);
             },
             [p = o.automatic](Composition&& c, Rng& rng, const Limits& limits) {
               return complete_auto(std::move(c), rng, limits, p);
             });
       }},
      {"bitboard", 1, true, true, kBitboardMaxFree,
       "complete search on machine words (rows and columns of fewest candidates, forward checking)", kBitboardParams,
       [](const EngineInfo& self, const EngineOptions& o) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(
             self, [p = o.bitboard](const Composition& c, Rng& rng, const Limits& limits) {
               return complete_bitboard(c, rng, limits, p);
             });
       }},
      {"exact", 2, true, true, 0, "complete search on the residual board (MRV, forward checking, restarts)",
       kExactParams,
       [](const EngineInfo& self, const EngineOptions& o) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(self,
                                                   [p = o.exact](const Composition& c, Rng& rng, const Limits& limits) {
                                                     return complete_exact(c, rng, limits, {}, p);
                                                   });
       }},
      // The paper's algorithm knows only queens; CSPLib's excluded diagonals are not part of it.
      {"grigoryan",
       3,
       false,
       false,
       0,
       "the paper's randomized algorithm with bounded backtracking ([Grigoryan])",
       kGrigoryanParams,
       [](const EngineInfo& self, const EngineOptions& o) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(
             self,
             [p = o.grigoryan](const Composition& c, Rng& rng, const Limits& limits) {
               return complete_grigoryan(c, rng, limits, p);
             },
             [p = o.grigoryan](Composition&& c, Rng& rng, const Limits& limits) {
               return complete_grigoryan(std::move(c), rng, limits, p);
             });
       },
       // Flat near 250 us up to n = 300 (its backtracking), then about n^0.88: 5x auto at
       // n = 1000, 1.2x at 10^5 (BENCHMARKS.md, "Cost estimates").
       {2.5e-4, 2.7e-4, 0.88}},
      {"minconflicts", 4, false, true, 0, "min-conflicts local search ([Minton92]) with the composition's rows fixed",
       kMinConflictsParams,
       [](const EngineInfo& self, const EngineOptions& o) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(
             self, [p = o.minconflicts](const Composition& c, Rng& rng, const Limits& limits) {
               return complete_minconflicts(c, rng, limits, p);
             });
       }},
      {"sat",
       5,
       true,
       true,
       kSatMaxFree,
       "CaDiCaL on a CNF of the residual board",
       {},
       [](const EngineInfo& self, const EngineOptions&) -> std::unique_ptr<Engine> {
         return std::make_unique<RegisteredEngine>(
             self, [](const Composition& c, Rng& rng, const Limits& limits) { return complete_sat(c, rng, limits); });
       }},
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
