#include "experiment/json_shape.hpp"

#include <algorithm>
#include <cmath>
#include <regex>
#include <stdexcept>

#include "system/errors.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// An integer value in min..max or equal to `also`, compared exactly.
bool integer_fits(const json& v, const JsonShape& s) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    return (s.min <= 0 || u >= static_cast<std::uint64_t>(s.min)) && u <= s.max;
  }
  const auto i = v.get<std::int64_t>();
  if (s.also && i == *s.also) return true;
  return i >= s.min && (i < 0 || static_cast<std::uint64_t>(i) <= s.max);
}

// Whether the value has the JSON type of the shape (one_or_list: either form).
bool has_type(const json& v, const JsonShape& s) {
  switch (s.type) {
    case JsonShape::Type::integer: return v.is_number_integer();
    case JsonShape::Type::number: return v.is_number();
    case JsonShape::Type::string: return v.is_string();
    case JsonShape::Type::boolean: return v.is_boolean();
    case JsonShape::Type::array: return v.is_array();
    case JsonShape::Type::object: return v.is_object();
    case JsonShape::Type::one_or_list: return v.is_array() || has_type(v, *s.items);
  }
  return false;
}

// Whether the value passes the shape's own checks (not those of its elements or fields).
bool fits(const json& v, const JsonShape& s) {
  if (!has_type(v, s)) return false;
  switch (s.type) {
    case JsonShape::Type::integer: return integer_fits(v, s);
    case JsonShape::Type::number: {
      const double x = v.get<double>();
      return (s.above_min ? x > s.min_number : x >= s.min_number) && x <= s.max_number;
    }
    case JsonShape::Type::string: {
      const auto& text = v.get_ref<const std::string&>();
      return !(s.non_empty && text.empty()) &&
             (s.choices.empty() || std::find(s.choices.begin(), s.choices.end(), text) != s.choices.end()) &&
             (s.pattern.empty() || std::regex_search(text, std::regex(s.pattern, std::regex::ECMAScript)));
    }
    case JsonShape::Type::array: return !(s.non_empty && v.empty());
    default: return true;
  }
}

std::string valid_keys(const JsonShape& s) {
  std::string keys;
  for (const JsonField& f : s.fields)
    if (f.key.empty() || f.key[0] != '$') keys += (keys.empty() ? "" : ", ") + f.key;
  return keys;
}

void check_object(const json& v, const JsonShape& s, const std::string& source, const std::string& path) {
  // Undeclared keys first, in the value's order, as a reader scans the file.
  for (const auto& [key, _] : v.items())
    if (!s.open &&
        std::none_of(s.fields.begin(), s.fields.end(), [&key = key](const JsonField& f) { return f.key == key; }))
      fail_at(source, path + "/" + key, s.unknown + valid_keys(s) + ")");
  for (const JsonField& f : s.fields)
    if (f.required && !v.contains(f.key)) fail_at(source, path, "missing required key \"" + f.key + "\"");
  if (s.store) s.store(v);
  for (const JsonField& f : s.fields) {
    if (v.contains(f.key))
      check_json(v[f.key], f.shape, source, path + "/" + f.key);
    else if (f.fallback)
      check_json(*f.fallback, f.shape, source, path + "/" + f.key);
  }
}

}  // namespace

const JsonField& field_of(const JsonShape& object, const std::string& key) {
  for (const JsonField& f : object.fields)
    if (f.key == key) return f;
  throw std::logic_error("field_of: no key \"" + key + "\"");
}

std::string describe_json_value(const json& v) {
  if (v.is_array()) return v.empty() ? "[]" : "an array of " + std::to_string(v.size());
  if (v.is_object()) return v.empty() ? "{}" : "an object";
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

void fail_at(const std::string& source, const std::string& path, const std::string& what) {
  // The path's keys are the config's own text: escaped, so that the message stays one line.
  throw InputError(source + ": " + (path.empty() ? "/" : text::escaped(path)) + ": " + what);
}

void check_json(const json& v, const JsonShape& s, const std::string& source, const std::string& path) {
  if (s.type == JsonShape::Type::one_or_list && has_type(v, s)) {
    // The form the value has reports its own failure.
    check_json(v, v.is_array() ? *s.list : *s.items, source, path);
    return;
  }
  if (!fits(v, s)) fail_at(source, path, "expected " + s.expected + ", got " + describe_json_value(v));
  if (s.type == JsonShape::Type::object) {
    check_object(v, s, source, path);
    return;
  }
  if (s.store) s.store(v);
  if (s.type == JsonShape::Type::array)
    for (std::size_t i = 0; i < v.size(); ++i) check_json(v[i], *s.items, source, path + "/" + std::to_string(i));
}

ordered_json schema_number(double value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 9e15)
    return static_cast<std::int64_t>(value);
  return value;
}

ordered_json json_schema_of(const JsonShape& s) {
  ordered_json node = ordered_json::object();
  if (s.type == JsonShape::Type::one_or_list) {
    node["oneOf"] = ordered_json::array({json_schema_of(*s.items), json_schema_of(*s.list)});
    node["expected"] = s.expected;
    return node;
  }
  constexpr const char* kTypeNames[] = {"integer", "number", "string", "boolean", "array", "object"};
  static_assert(std::size(kTypeNames) == static_cast<std::size_t>(JsonShape::Type::one_or_list));
  node["type"] = kTypeNames[static_cast<int>(s.type)];
  switch (s.type) {
    case JsonShape::Type::integer:
      node["minimum"] = s.also ? *s.also : s.min;
      node["maximum"] = s.max;
      if (s.also && s.min - *s.also == 2)
        node["not"] = {{"const", *s.also + 1}};
      else if (s.also && s.min - *s.also != 1)
        throw std::logic_error("json_schema_of: `also` must lie 1 or 2 below the minimum");
      break;
    case JsonShape::Type::number:
      node[s.above_min ? "exclusiveMinimum" : "minimum"] = schema_number(s.min_number);
      if (std::isfinite(s.max_number)) node["maximum"] = schema_number(s.max_number);
      break;
    case JsonShape::Type::string:
      if (s.non_empty) node["minLength"] = 1;
      if (!s.pattern.empty()) node["pattern"] = s.pattern;
      if (!s.choices.empty()) node["enum"] = s.choices;
      break;
    case JsonShape::Type::array:
      if (s.non_empty) node["minItems"] = 1;
      node["items"] = json_schema_of(*s.items);
      break;
    case JsonShape::Type::object: {
      ordered_json properties = ordered_json::object(), required = ordered_json::array();
      for (const JsonField& f : s.fields) {
        properties[f.key] = json_schema_of(f);
        if (f.required) required.push_back(f.key);
      }
      if (!s.fields.empty()) node["properties"] = std::move(properties);
      if (!required.empty()) node["required"] = std::move(required);
      if (!s.open) node["additionalProperties"] = false;
      break;
    }
    default: break;
  }
  if (!s.expected.empty()) node["expected"] = s.expected;
  return node;
}

ordered_json json_schema_of(const JsonField& f) {
  ordered_json node = json_schema_of(f.shape);
  if (f.fallback) node["default"] = ordered_json::parse(f.fallback->dump());
  if (!f.help.empty()) node["description"] = f.help;
  return node;
}

}  // namespace nqc
