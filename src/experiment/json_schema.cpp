#include "experiment/json_schema.hpp"

#include <optional>
#include <regex>
#include <set>
#include <stdexcept>

#include "io/errors.hpp"
#include "io/text_input.hpp"

namespace nqc {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
__extension__ typedef __int128 Int128;

struct Failure {
  std::string path;
  std::string message;
};
using Outcome = std::optional<Failure>;

const std::set<std::string>& supported_keywords() {
  static const std::set<std::string> k{
      "type", "enum", "const", "minimum", "maximum", "minLength", "pattern", "minItems", "items", "properties", "required",
      "additionalProperties", "oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$ref",
      // annotations
      "$schema", "$id", "$comment", "title", "description", "default", "examples", "expected", "definitions"};
  return k;
}

bool has_type(const json& v, const std::string& type) {
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "object") return v.is_object();
  if (type == "array") return v.is_array();
  if (type == "boolean") return v.is_boolean();
  if (type == "null") return v.is_null();
  throw std::logic_error("schema: unknown type \"" + type + "\"");
}

// -1, 0 or 1 as a < b, a == b, a > b for two JSON numbers; integers compare exactly.
template <class A, class B>
int compare_numbers(const A& a, const B& b) {
  if (a.is_number_integer() && b.is_number_integer()) {
    const auto wide = [](const auto& x) {
      return x.is_number_unsigned() ? static_cast<Int128>(x.template get<std::uint64_t>())
                                    : static_cast<Int128>(x.template get<std::int64_t>());
    };
    const Int128 x = wide(a), y = wide(b);
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  const auto x = a.template get<long double>(), y = b.template get<long double>();
  return x < y ? -1 : (x > y ? 1 : 0);
}

// Equality of a config value and a schema constant (scalars; containers compare unequal
// unless both are empty of the same kind, which the schema does not use).
bool equal(const json& v, const ordered_json& c) {
  if (v.is_number() && c.is_number()) return compare_numbers(v, c) == 0;
  if (v.is_string() && c.is_string()) return v.get<std::string>() == c.get<std::string>();
  if (v.is_boolean() && c.is_boolean()) return v.get<bool>() == c.get<bool>();
  if (v.is_null() && c.is_null()) return true;
  return false;
}

class Validator {
 public:
  explicit Validator(const ordered_json& root) : root_(root) {}

  Outcome check(const json& v, const ordered_json& s, const std::string& path) const {
    if (!s.is_object()) throw std::logic_error("schema at " + path + ": a schema must be an object");
    for (const auto& [key, _] : s.items())
      if (!supported_keywords().count(key)) throw std::logic_error("schema: unsupported keyword \"" + key + "\"");
    if (s.contains("$ref")) return check(v, resolve(s["$ref"].get<std::string>()), path);
    // ", got V" unless V is an object: "got an object" says nothing when keys are missing.
    const auto expected = [&] {
      return fail(path, "expected " + expectation(s) + (v.is_object() && !v.empty() ? "" : ", got " + describe_json_value(v)));
    };

    if (s.contains("type") && !type_fits(v, s)) return expected();
    if (s.contains("enum")) {
      bool any = false;
      for (const auto& c : s["enum"]) any = any || equal(v, c);
      if (!any) return expected();
    }
    if (s.contains("const") && !equal(v, s["const"])) return expected();
    if (v.is_number()) {
      if (s.contains("minimum") && compare_numbers(v, s["minimum"]) < 0) return expected();
      if (s.contains("maximum") && compare_numbers(v, s["maximum"]) > 0) return expected();
    }
    if (v.is_string() && s.contains("minLength") && v.get<std::string>().size() < s["minLength"].get<std::size_t>())
      return expected();
    // ECMA 262 regular expression, unanchored (draft-07); the schema anchors where it needs to.
    if (v.is_string() && s.contains("pattern") &&
        !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>(), std::regex::ECMAScript)))
      return expected();
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<std::size_t>()) return expected();
      if (s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i)
          if (auto f = check(v[i], s["items"], path + "/" + std::to_string(i))) return f;
    }
    if (v.is_object()) {
      if (auto f = check_object(v, s, path)) return f;
    }
    if (s.contains("not") && !check(v, s["not"], path)) return expected();
    if (s.contains("allOf"))
      for (const auto& branch : s["allOf"])
        if (auto f = check(v, branch, path)) return f;
    if (s.contains("if")) {
      const bool holds = !check(v, s["if"], path);
      if (holds && s.contains("then")) {
        if (auto f = check(v, s["then"], path)) return f;
      } else if (!holds && s.contains("else")) {
        if (auto f = check(v, s["else"], path)) return f;
      }
    }
    for (const char* key : {"oneOf", "anyOf"}) {
      if (!s.contains(key)) continue;
      std::size_t passed = 0;
      Outcome typed;  // the failure of the first branch whose type fits the value
      for (const auto& branch : s[key]) {
        const Outcome f = check(v, branch, path);
        if (!f) ++passed;
        else if (!typed && declares_type(branch) && type_fits(v, follow(branch))) typed = f;
      }
      const bool ok = std::string(key) == "oneOf" ? passed == 1 : passed >= 1;
      if (!ok) return passed == 0 && typed ? typed : expected();
    }
    return std::nullopt;
  }

 private:
  static Outcome fail(const std::string& path, std::string message) {
    return Failure{path.empty() ? "/" : path, std::move(message)};
  }

  Outcome check_object(const json& v, const ordered_json& s, const std::string& path) const {
    static const ordered_json kNone = ordered_json::object();
    const ordered_json& props = s.contains("properties") ? s["properties"] : kNone;
    // Keys in the value's order: unknown keys first, as a reader scans the file.
    if (s.contains("additionalProperties")) {
      const ordered_json& extra = s["additionalProperties"];
      for (const auto& [key, value] : v.items()) {
        if (props.contains(key)) continue;
        if (extra.is_boolean()) {
          if (!extra.get<bool>()) return fail(path + "/" + key, "unknown key (valid keys: " + key_list(props) + ")");
        } else if (auto f = check(value, extra, path + "/" + key)) {
          return f;
        }
      }
    }
    if (s.contains("required"))
      for (const auto& key : s["required"])
        if (!v.contains(key.get<std::string>()))
          return fail(path, "missing required key \"" + key.get<std::string>() + "\"");
    for (const auto& [key, sub] : props.items())
      if (v.contains(key))
        if (auto f = check(v[key], sub, path + "/" + key)) return f;
    return std::nullopt;
  }

  static std::string key_list(const ordered_json& props) {
    std::string keys;
    for (const auto& [key, _] : props.items())
      if (key.empty() || key[0] != '$') keys += (keys.empty() ? "" : ", ") + key;
    return keys;
  }

  bool type_fits(const json& v, const ordered_json& s) const {
    if (!s.contains("type")) return true;
    const ordered_json& t = s["type"];
    if (t.is_string()) return has_type(v, t.get<std::string>());
    for (const auto& one : t)
      if (has_type(v, one.get<std::string>())) return true;
    return false;
  }
  bool declares_type(const ordered_json& s) const { return follow(s).contains("type"); }
  const ordered_json& follow(const ordered_json& s) const {
    return s.contains("$ref") ? follow(resolve(s["$ref"].get<std::string>())) : s;
  }

  // The text after "expected": the node's annotation, else its type(s).
  std::string expectation(const ordered_json& s) const {
    if (s.contains("expected")) return s["expected"].get<std::string>();
    if (s.contains("type")) return s["type"].is_string() ? "a value of type " + s["type"].get<std::string>() : "a value of type " + s["type"].dump();
    return "a value that fits " + std::string(s.contains("oneOf") ? "one" : "all") + " of the schema's alternatives";
  }

  const ordered_json& resolve(const std::string& ref) const {
    const std::string prefix = "#/definitions/";
    if (ref.rfind(prefix, 0) != 0 || !root_.contains("definitions") || !root_["definitions"].contains(ref.substr(prefix.size())))
      throw std::logic_error("schema: unresolvable $ref \"" + ref + "\"");
    return root_["definitions"][ref.substr(prefix.size())];
  }

  const ordered_json& root_;
};

}  // namespace

std::string describe_json_value(const json& v) {
  if (v.is_array()) return v.empty() ? "[]" : "an array of " + std::to_string(v.size());
  if (v.is_object()) return v.empty() ? "{}" : "an object";
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

void validate_json(const json& value, const ordered_json& schema, const std::string& source) {
  if (const Outcome f = Validator(schema).check(value, schema, ""))
    throw InputError(source + ": " + text::escaped(f->path) + ": " + f->message);  // keys are the config's: one line
}

const ordered_json& config_schema() {
  static const ordered_json schema = ordered_json::parse(config_schema_text());
  return schema;
}

}  // namespace nqc
