// An engine's parameter rows (core/param_spec.hpp, EngineInfo::params) as JSON: the checks of a
// config's engine_params (or `nqc complete --param`), their help and their JSON Schema.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/engine_options.hpp"

namespace nqc {

/// The text after "expected" for a value of `spec`: "true or false", "an integer LO..HI" ("an
/// integer >= LO" when HI is UINT64_MAX), "a number LO..HI" ("a number >= LO" without upper
/// bound), "one of NAME, NAME".
std::string param_expectation(const ParamSpec& spec);

/// `value` of `spec` as JSON (a choice as its name).
nlohmann::json param_json(const ParamSpec& spec, const ParamValue& value);

/// Checks `params` (an object, by parameter name) against the rows of `engine` and writes each
/// value into `options`. Throws nqc::InputError "SOURCE: PATH/NAME: expected ..., got V", "SOURCE:
/// PATH/NAME: unknown parameter (valid: ...)", or for an engine without parameters and a
/// non-empty object "SOURCE: PATH: engine 'E' takes no parameters (A, B and C do)".
void read_engine_params(const nlohmann::json& params, const EngineInfo& engine, EngineOptions& options,
                        const std::string& source, const std::string& path);

/// The JSON Schema (draft-07) of `engine`'s engine_params: its parameters with range, default,
/// `expected` and help; for an engine without parameters, an empty object.
nlohmann::ordered_json engine_params_schema(const EngineInfo& engine);

/// `engine`'s parameters for --help texts, one per line pair: INDENT "NAME = DEFAULT (EXPECTED)",
/// then INDENT "    HELP". Empty for an engine without parameters.
std::string engine_params_help(const EngineInfo& engine, const std::string& indent);

}  // namespace nqc
