// Engines by name or as variants with parameters, for the benchmarks' --engines and --engine.
#pragma once

#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/engine.hpp"
#include "core/engine_options.hpp"
#include "experiment/engine_params.hpp"

namespace nqc::bench {

/// Labels given by --engine LABEL=NAME:JSON, each an engine and the parameters of JSON (a
/// config's engine_params, e.g. 'norestart=bitboard:{"luby_restart_nodes":0}').
class EngineVariants {
 public:
  /// Adds the variant of `spec`; false (after one line on standard error) when it is malformed.
  bool add(const std::string& spec) {
    const auto eq = spec.find('='), colon = spec.find(':');
    if (eq == std::string::npos || colon == std::string::npos || colon < eq) {
      std::fprintf(stderr, "--engine: expected LABEL=NAME:JSON, got %s\n", spec.c_str());
      return false;
    }
    const std::string label = spec.substr(0, eq), name = spec.substr(eq + 1, colon - eq - 1);
    EngineOptions options;
    try {
      read_engine_params(nlohmann::json::parse(spec.substr(colon + 1)), engine_info(name), options, "--engine", label);
    } catch (const std::exception& e) {  // an unknown engine or parameter, a value out of range, bad JSON
      std::fprintf(stderr, "--engine %s: %s\n", spec.c_str(), e.what());
      return false;
    }
    variants_[label] = {name, options};
    last_ = label;
    return true;
  }
  /// The label of the variant added last.
  [[nodiscard]] const std::string& last() const { return last_; }
  /// The engine of `label`: a variant, else the engine of that name with its defaults.
  [[nodiscard]] std::unique_ptr<Engine> make(const std::string& label) const {
    const auto it = variants_.find(label);
    return it == variants_.end() ? make_engine(label) : make_engine(it->second.first, it->second.second);
  }
  /// The engine name behind `label`.
  [[nodiscard]] std::string name(const std::string& label) const {
    const auto it = variants_.find(label);
    return it == variants_.end() ? label : it->second.first;
  }

 private:
  std::map<std::string, std::pair<std::string, EngineOptions>> variants_;
  std::string last_;
};

}  // namespace nqc::bench
