// An engine's parameter rows (EngineInfo::params) as JSON: checks, help and JSON Schema.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/engine_options.hpp"

namespace nqc {

/// The text after "expected" for a value of `spec` ("an integer LO..HI", "one of A, B", ...).
std::string param_expectation(const ParamSpec& spec);

/// `value` of `spec` as JSON (a choice as its name).
nlohmann::json param_json(const ParamSpec& spec, const ParamValue& value);

/// Checks `params` against the rows of `engine` and writes each value into `options`. Throws
/// nqc::InputError "SOURCE: PATH[/NAME]: ..." as check_json does.
void read_engine_params(const nlohmann::json& params, const EngineInfo& engine, EngineOptions& options,
                        const std::string& source, const std::string& path);

/// The JSON Schema (draft-07) of `engine`'s engine_params.
nlohmann::ordered_json engine_params_schema(const EngineInfo& engine);

/// `engine`'s parameters for --help texts: "NAME = DEFAULT (EXPECTED)", then "    HELP".
std::string engine_params_help(const EngineInfo& engine, const std::string& indent);

}  // namespace nqc
