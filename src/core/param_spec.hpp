// Engine parameters as rows (CaDiCaL's options.hpp model): each engine lists its parameters
// once, as X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP) in its header; from that come its
// parameter struct (NQC_PARAM_FIELD) and its registry rows (NQC_PARAM_ROW). No JSON here.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>
#include <variant>

namespace nqc {

struct EngineOptions;

/// MAX of a real parameter without upper bound.
inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

/// What a parameter holds, from its C++ type: bool -> flag, an integer type -> integer, a
/// floating-point type -> real, an enum -> choice (one of the names that `param_choices` of the
/// enum gives, in the order of the enum's values 0, 1, ...).
enum class ParamKind : std::int8_t { flag, integer, real, choice };

/// A parameter's value: bool (flag); std::int64_t for a negative integer, std::uint64_t for any
/// other (so that 0..UINT64_MAX fits); double (real); the 0-based index of the name (choice, as
/// std::uint64_t).
using ParamValue = std::variant<bool, std::int64_t, std::uint64_t, double>;

/// One engine parameter: its name in configs (`engine_params`), kind, range and help, and how to
/// read and write it in an EngineOptions. Integers lie in min_integer..max_integer, reals in
/// min_real..max_real (max_real may be +infinity); flags and choices need no range.
struct ParamSpec {
  std::string_view name;
  ParamKind kind = ParamKind::integer;
  std::int64_t min_integer = 0;
  std::uint64_t max_integer = 0;
  double min_real = 0;
  double max_real = 0;
  std::span<const std::string_view> choices;  ///< choice: the names, by value
  std::string_view help;                      ///< one line: what it does, with units
  ParamValue (*get)(const EngineOptions&) = nullptr;
  void (*set)(EngineOptions&, const ParamValue&) = nullptr;
};

namespace param_detail {

template <class M>
struct Member;
template <class C, class T>
struct Member<T C::*> {
  using Type = T;
};

template <class T>
constexpr ParamKind kind_of() {
  if constexpr (std::is_same_v<T, bool>)
    return ParamKind::flag;
  else if constexpr (std::is_enum_v<T>)
    return ParamKind::choice;
  else if constexpr (std::is_floating_point_v<T>)
    return ParamKind::real;
  else
    return ParamKind::integer;
}

template <class T>
ParamValue to_value(T x) {
  if constexpr (std::is_same_v<T, bool> || std::is_floating_point_v<T>)
    return x;
  else if constexpr (std::is_enum_v<T>)
    return static_cast<std::uint64_t>(x);
  else if constexpr (std::is_signed_v<T>)
    return x < 0 ? ParamValue(static_cast<std::int64_t>(x)) : ParamValue(static_cast<std::uint64_t>(x));
  else
    return static_cast<std::uint64_t>(x);
}

template <class T>
T from_value(const ParamValue& v) {
  return std::visit([](auto x) { return static_cast<T>(x); }, v);
}

}  // namespace param_detail

/// The row of the field `Field` of the parameter struct `Options` (a member of EngineOptions):
/// what NQC_PARAM_ROW expands to. `lo`, `hi`: the range (integers and reals; ignored for flags
/// and choices).
template <auto Options, auto Field, class Lo, class Hi>
ParamSpec param_row(std::string_view name, Lo lo, Hi hi, std::string_view help) {
  using T = typename param_detail::Member<decltype(Field)>::Type;
  ParamSpec s;
  s.name = name;
  s.kind = param_detail::kind_of<T>();
  if constexpr (std::is_floating_point_v<T>) {
    s.min_real = static_cast<double>(lo);
    s.max_real = static_cast<double>(hi);
  } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    s.min_integer = static_cast<std::int64_t>(lo);
    s.max_integer = static_cast<std::uint64_t>(hi);
  } else if constexpr (std::is_enum_v<T>) {
    s.choices = param_choices(T{});
  }
  s.help = help;
  s.get = [](const EngineOptions& o) { return param_detail::to_value((o.*Options).*Field); };
  s.set = [](EngineOptions& o, const ParamValue& v) { (o.*Options).*Field = param_detail::from_value<T>(v); };
  return s;
}

}  // namespace nqc

/// X(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP) as a member of the parameter struct, with its default.
#define NQC_PARAM_FIELD(A, TYPE, NAME, DEFAULT, MIN, MAX, HELP) TYPE NAME = DEFAULT;

/// X(MEMBER, ...) as a row of the registry: the field NAME of EngineOptions::MEMBER.
#define NQC_PARAM_ROW(MEMBER, TYPE, NAME, DEFAULT, MIN, MAX, HELP) \
  ::nqc::param_row<&::nqc::EngineOptions::MEMBER, &decltype(::nqc::EngineOptions::MEMBER)::NAME>(#NAME, MIN, MAX, HELP),
