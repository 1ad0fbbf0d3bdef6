#include "experiment/engine_params.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "experiment/json_shape.hpp"

namespace nqc {
namespace {

using nlohmann::json;

std::string number_text(double x) { return schema_number(x).dump(); }

// The shape of one parameter; a checked value is written into `options`.
JsonShape param_shape(const ParamSpec& spec, EngineOptions& options) {
  JsonShape s;
  s.expected = param_expectation(spec);
  switch (spec.kind) {
    case ParamKind::flag: s.type = JsonShape::Type::boolean; break;
    case ParamKind::integer:
      s.type = JsonShape::Type::integer;
      s.min = spec.min_integer;
      s.max = spec.max_integer;
      break;
    case ParamKind::real:
      s.type = JsonShape::Type::number;
      s.min_number = spec.min_real;
      s.max_number = spec.max_real;
      break;
    case ParamKind::choice:
      s.type = JsonShape::Type::string;
      s.choices.assign(spec.choices.begin(), spec.choices.end());
      break;
  }
  s.store = [&spec, &options](const json& v) {
    ParamValue value;
    if (v.is_boolean())
      value = v.get<bool>();
    else if (v.is_number_unsigned())
      value = v.get<std::uint64_t>();
    else if (v.is_number_integer())
      value = v.get<std::int64_t>();
    else if (v.is_number())
      value = v.get<double>();
    else
      value = static_cast<std::uint64_t>(std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>()) -
                                         spec.choices.begin());
    spec.set(options, value);
  };
  return s;
}

// The parameters of `engine` as an object shape that writes into `options`.
JsonShape params_shape(const EngineInfo& engine, EngineOptions& options) {
  JsonShape s;
  s.type = JsonShape::Type::object;
  s.expected = "an object of the engine's parameters";
  s.unknown = "unknown parameter (valid: ";
  static const EngineOptions defaults;
  for (const ParamSpec& spec : engine.params)
    s.fields.push_back({std::string(spec.name), false, param_json(spec, spec.get(defaults)), std::string(spec.help),
                        param_shape(spec, options)});
  return s;
}

std::string takes_no_parameters(const EngineInfo& engine) {
  return "engine '" + engine.name + "' takes no parameters (" +
         engine_list([](const EngineInfo& e) { return !e.params.empty(); }, " and ") + " do)";
}

}  // namespace

std::string param_expectation(const ParamSpec& spec) {
  switch (spec.kind) {
    case ParamKind::flag: return "true or false";
    case ParamKind::integer:
      return spec.max_integer == std::numeric_limits<std::uint64_t>::max()
                 ? "an integer >= " + std::to_string(spec.min_integer)
                 : "an integer " + std::to_string(spec.min_integer) + ".." + std::to_string(spec.max_integer);
    case ParamKind::real:
      return std::isinf(spec.max_real) ? "a number >= " + number_text(spec.min_real)
                                       : "a number " + number_text(spec.min_real) + ".." + number_text(spec.max_real);
    case ParamKind::choice: {
      std::string names;
      for (const auto& c : spec.choices) names += (names.empty() ? "" : ", ") + std::string(c);
      return "one of " + names;
    }
  }
  return {};
}

json param_json(const ParamSpec& spec, const ParamValue& value) {
  if (spec.kind == ParamKind::choice) return std::string(spec.choices[std::get<std::uint64_t>(value)]);
  return std::visit([](auto x) { return json(x); }, value);
}

void read_engine_params(const json& params, const EngineInfo& engine, EngineOptions& options, const std::string& source,
                        const std::string& path) {
  if (engine.params.empty() && params.is_object() && !params.empty())
    fail_at(source, path, takes_no_parameters(engine));
  check_json(params, params_shape(engine, options), source, path);
}

nlohmann::ordered_json engine_params_schema(const EngineInfo& engine) {
  if (engine.params.empty())
    return {{"type", "object"}, {"maxProperties", 0}, {"description", takes_no_parameters(engine)}};
  EngineOptions scratch;
  return json_schema_of(params_shape(engine, scratch));
}

std::string engine_params_help(const EngineInfo& engine, const std::string& indent) {
  static const EngineOptions defaults;
  std::string out;
  for (const ParamSpec& spec : engine.params)
    out += indent + std::string(spec.name) + " = " + param_json(spec, spec.get(defaults)).dump() + " (" +
           param_expectation(spec) + ")\n" + indent + "    " + std::string(spec.help) + "\n";
  return out;
}

}  // namespace nqc
