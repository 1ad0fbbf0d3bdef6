// The shape of a JSON value as a table row declares it: check_json checks and stores a value,
// json_schema_of writes it as JSON Schema draft-07.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nqc {

struct JsonField;

/// What a JSON value must be; a failure is "expected EXPECTED, got V".
struct JsonShape {
  enum class Type : std::int8_t {
    integer,      ///< an integer written as one (8, not 8.0) in min..max, or `also`
    number,       ///< any number in min_number..max_number (above min_number when `above_min`)
    string,       ///< a string: non-empty when `non_empty`, matching `pattern`, one of `choices`
    boolean,      ///< true or false
    array,        ///< an array of `items` (non-empty when `non_empty`)
    object,       ///< an object of `fields` and no other key
    one_or_list,  ///< one `items` value, or `list` (an array of them)
  };
  Type type = Type::object;
  std::string expected;  ///< the text after "expected" in this value's error message
  std::int64_t min = 0;
  std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  std::optional<std::int64_t> also;  ///< integer: one value below `min` that is allowed too (e.g. -1 for "all")
  double min_number = 0;
  bool above_min = false;  ///< number: min_number itself excluded
  double max_number = std::numeric_limits<double>::infinity();
  bool non_empty = false;
  std::string pattern;                     ///< string: an ECMAScript regular expression, searched (anchor it)
  std::vector<std::string> choices;        ///< string: the allowed values, when not empty
  std::shared_ptr<const JsonShape> items;  ///< array, one_or_list: the shape of an element
  std::shared_ptr<const JsonShape> list;   ///< one_or_list: the array form
  std::vector<JsonField> fields;           ///< object: its keys, in the order checked and shown
  bool open = false;                       ///< object: other keys too (checked elsewhere)
  std::string unknown = "unknown key (valid keys: ";  ///< object: an undeclared key's message, before the keys and ")"
  /// Called with the value once its own checks pass, before its elements or fields.
  std::function<void(const nlohmann::json&)> store;
};

/// One key of an object shape; `fallback`: its default, checked and stored as if written.
struct JsonField {
  std::string key;
  bool required = false;
  std::optional<nlohmann::json> fallback;
  std::string help;
  JsonShape shape;
};

/// The field `key` of an object shape. Throws std::logic_error when it has none.
const JsonField& field_of(const JsonShape& object, const std::string& key);

/// A JSON value for messages: cut at 40 characters; arrays and objects described, never dumped.
std::string describe_json_value(const nlohmann::json& v);

/// Checks `value` against `shape` and stores what passes. Throws nqc::InputError
/// "SOURCE: PATH: message" at the first failure.
void check_json(const nlohmann::json& value, const JsonShape& shape, const std::string& source,
                const std::string& path = "");

/// Throws nqc::InputError "SOURCE: PATH: WHAT" (PATH "/" when empty, escaped to one line).
[[noreturn]] void fail_at(const std::string& source, const std::string& path, const std::string& what);

/// `shape` as a JSON Schema (draft-07) node, `expected` an annotation; it refuses what check_json
/// refuses but integers written as decimals and keys given twice.
nlohmann::ordered_json json_schema_of(const JsonShape& shape);

/// `field`'s node of an object schema: its shape's schema with "default" and "description".
nlohmann::ordered_json json_schema_of(const JsonField& field);

/// A `value` as JSON Schema writes numbers: a double with an integer value as that integer.
nlohmann::ordered_json schema_number(double value);

}  // namespace nqc
