// JSON Schema (draft-07) validation of configs, for the keywords configs/nqc-config.schema.json
// uses. Debian 12 packages no C++ JSON Schema validator; tests/cli/test_config_schema.sh checks
// this one against Debian's python3-jsonschema (the reference implementation) on every config
// and on a corpus of bad ones.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace nqc {

/// Short description of a JSON value for messages: its text cut at 40 characters; arrays and
/// objects are described ("an array of 3"), never dumped (a hostile value nests 10^5 deep).
std::string describe_json_value(const nlohmann::json& v);

/// Validates `value` against the draft-07 `schema` and throws nqc::InputError
/// "SOURCE: JSON_PATH: message" for the first failure in document order. Messages:
/// "expected E, got V" (E: the failing node's `expected` annotation, else its type),
/// "unknown key (valid keys: ...)" for a key that additionalProperties: false refuses, and
/// "missing required key \"K\"". For oneOf/anyOf the branch whose type fits the value
/// reports its own failure; when none fits, the node's `expected` is reported.
/// Supported keywords: type, enum, const, minimum, maximum, minLength, pattern, minItems, items,
/// properties, required, additionalProperties, oneOf, anyOf, allOf, not, if/then/else, $ref
/// ("#/definitions/NAME"); annotations are ignored. Any other keyword throws
/// std::logic_error (the schema is wrong, not the config).
void validate_json(const nlohmann::json& value, const nlohmann::ordered_json& schema, const std::string& source);

/// configs/nqc-config.schema.json as compiled into nqc (parsed once).
const nlohmann::ordered_json& config_schema();

/// The text of configs/nqc-config.schema.json as compiled into nqc.
const std::string& config_schema_text();

}  // namespace nqc
