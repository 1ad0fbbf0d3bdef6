#include "experiment/aggregate.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cinttypes>
#include <istream>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string_view>

#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/engine.hpp"
#include "experiment/config.hpp"
#include "experiment/engine_params.hpp"
#include "formats/hash.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "formats/text_input.hpp"
#include "formats/csplib.hpp"
#include "system/errors.hpp"

namespace nqc {

namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

double mean(const std::vector<double>& t) {
  return std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
}

double median_of_sorted(const std::vector<double>& t) {
  return t.size() % 2 == 1 ? t[t.size() / 2] : 0.5 * (t[t.size() / 2 - 1] + t[t.size() / 2]);
}

}  // namespace

std::vector<SizeSummary> summarize(const std::vector<CaseRow>& rows) {
  std::map<std::int64_t, std::vector<const CaseRow*>> by_n;
  for (const CaseRow& r : rows) by_n[r.n].push_back(&r);
  std::vector<SizeSummary> table;
  for (const auto& [n, group] : by_n) {
    SizeSummary& s = table.emplace_back();
    s.n = n;
    s.cases = group.size();
    const auto m = static_cast<double>(group.size());
    std::vector<double> t;
    std::array<std::uint64_t, 5> bt{};
    std::uint64_t backtracks = 0, queens = 0;  // sums: exact, divided once
    for (const CaseRow* r : group) {
      t.push_back(r->wall_s);
      ++bt[std::min<std::uint64_t>(r->backtracks, 4)];
      backtracks += r->backtracks;
      queens += static_cast<std::uint64_t>(r->k);
      s.false_negatives += r->false_negative;
      s.gave_up += r->outcome == static_cast<std::int8_t>(Outcome::gave_up) ? 1 : 0;
      s.infeasible += r->outcome == static_cast<std::int8_t>(Outcome::infeasible) ? 1 : 0;
    }
    for (std::size_t i = 0; i < bt.size(); ++i) s.bt[i] = static_cast<double>(bt[i]) / m;
    s.mean_backtracks = static_cast<double>(backtracks) / m;
    s.mean_k = static_cast<double>(queens) / m;
    std::sort(t.begin(), t.end());
    s.mean_s = mean(t);
    s.median_s = median_of_sorted(t);
    const auto fast = static_cast<std::ptrdiff_t>(std::max<std::size_t>(1, t.size() * 9 / 10));  // t90mean
    s.t90mean_s = mean({t.begin(), t.begin() + fast});
    s.max_s = t.back();
  }
  return table;
}

std::string format_table(const std::vector<SizeSummary>& table) {
  std::string out =
      "|          n |    cases |     mean s |   median s |  t90mean s |      max s | 0 backtracks | false neg | gave "
      "up |\n"
      "|-----------:|---------:|-----------:|-----------:|-----------:|-----------:|-------------:|----------:|--------"
      ":|\n";
  char line[256];
  for (const SizeSummary& s : table) {
    std::snprintf(line, sizeof line,
                  "| %10lld | %8llu | %10.3e | %10.3e | %10.3e | %10.3e | %11.2f%% | %9llu | %7llu |\n",
                  static_cast<long long>(s.n), static_cast<unsigned long long>(s.cases), s.mean_s, s.median_s,
                  s.t90mean_s, s.max_s, 100.0 * s.bt[0], static_cast<unsigned long long>(s.false_negatives),
                  static_cast<unsigned long long>(s.gave_up));
    out += line;
  }
  return out;
}

std::string format_csv(const std::vector<SizeSummary>& table) {
  std::string out =
      "n,cases,mean_s,median_s,t90mean_s,max_s,bt0,bt1,bt2,bt3,bt_more,false_negatives,gave_up,infeasible,"
      "mean_backtracks,mean_k\n";
  char line[512];
  for (const SizeSummary& s : table) {
    std::snprintf(line, sizeof line,
                  "%lld,%llu,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%llu,%llu,%llu,%.17g,%.17g\n",
                  static_cast<long long>(s.n), static_cast<unsigned long long>(s.cases), s.mean_s, s.median_s,
                  s.t90mean_s, s.max_s, s.bt[0], s.bt[1], s.bt[2], s.bt[3], s.bt[4],
                  static_cast<unsigned long long>(s.false_negatives), static_cast<unsigned long long>(s.gave_up),
                  static_cast<unsigned long long>(s.infeasible), s.mean_backtracks, s.mean_k);
    out += line;
  }
  return out;
}

bool is_derived_row(const CaseRow& row) { return static_cast<Origin>(row.origin) == Origin::derived; }

bool is_instance_row(const CaseRow& row) { return static_cast<Origin>(row.origin) == Origin::instance; }

std::string_view instance_file(const CaseRow& row) {
  return {row.instance.data(), strnlen(row.instance.data(), row.instance.size())};
}

InstanceGroup instance_group(const CaseRow& row) {
  InstanceGroup g{static_cast<Origin>(row.origin), row.n, std::nullopt};
  switch (g.origin) {
    case Origin::instance:
      if (is_param_file(std::string(instance_file(row)))) g.param = row.composition_id;
      break;
    case Origin::canonical: g.param = static_cast<std::uint64_t>(row.k); break;
    default: g.param = row.solution_id; break;
  }
  return g;
}

namespace {

VerdictTimes verdict_times(std::vector<double> t) {
  if (t.empty()) return {kNone, kNone, kNone};
  std::sort(t.begin(), t.end());
  return {mean(t), median_of_sorted(t), t.back()};
}

// A time in the Markdown table, "-" for none.
std::string seconds_cell(double s) {
  if (std::isnan(s)) return "-";
  char cell[32];
  std::snprintf(cell, sizeof cell, "%.3e", s);
  return cell;
}

// A time in the CSV, empty for none.
std::string seconds_field(double s) {
  if (std::isnan(s)) return "";
  char field[32];
  std::snprintf(field, sizeof field, "%.9g", s);
  return field;
}

}  // namespace

std::vector<InstanceSummary> summarize_instances(const std::vector<CaseRow>& rows) {
  std::map<InstanceGroup, std::vector<const CaseRow*>> groups;
  for (const CaseRow& r : rows)
    if (!is_derived_row(r)) groups[instance_group(r)].push_back(&r);
  std::vector<InstanceSummary> table;
  for (const auto& [key, group] : groups) {
    InstanceSummary s;
    s.origin = key.origin;
    s.n = key.n;
    s.param = key.param;
    s.cases = group.size();
    std::set<std::string_view> files;
    std::vector<double> solved, infeasible, gave_up;
    for (const CaseRow* r : group) {
      if (is_instance_row(*r)) files.insert(instance_file(*r));
      switch (static_cast<Outcome>(r->outcome)) {
        case Outcome::solved: solved.push_back(r->wall_s); break;
        case Outcome::infeasible: infeasible.push_back(r->wall_s); break;
        case Outcome::gave_up: gave_up.push_back(r->wall_s); break;
      }
    }
    s.files = files.size();
    s.solved = solved.size();
    s.infeasible = infeasible.size();
    s.gave_up = gave_up.size();
    s.solved_s = verdict_times(std::move(solved));
    s.infeasible_s = verdict_times(std::move(infeasible));
    s.gave_up_mean_s = gave_up.empty() ? kNone : mean(gave_up);
    table.push_back(s);
  }
  return table;
}

std::string format_instance_table(const std::vector<InstanceSummary>& table) {
  std::string out;
  char line[512];
  for (std::size_t i = 0; i < table.size(); ++i) {
    const InstanceSummary& s = table[i];
    if (i == 0 || s.origin != table[i - 1].origin) {
      if (i > 0) out += "\n";
      std::snprintf(line, sizeof line,
                    "| %-18s |          n | %9s |    files |    cases |   solved | infeasible |  gave up | solved mean "
                    "s | solved median s | solved max s | infeasible mean s | infeasible median s | infeasible max s | "
                    "gave up mean s |\n",
                    "origin", std::string(param_name(s.origin)).c_str());
      out += line;
      out +=
          "|:-------------------|-----------:|----------:|---------:|---------:|---------:|-----------:|---------:|--"
          "------------:|----------------:|-------------:|------------------:|--------------------:|-------------"
          "----:|---------------:|\n";
    }
    const std::string param = s.param ? std::to_string(*s.param) : "-";
    std::snprintf(
        line, sizeof line,
        "| %-18s | %10lld | %9s | %8llu | %8llu | %8llu | %10llu | %8llu | %13s | %15s | %12s | %17s | %19s | %16s | "
        "%14s |\n",
        kOriginNames[static_cast<int>(s.origin)].data(), static_cast<long long>(s.n), param.c_str(),
        static_cast<unsigned long long>(s.files), static_cast<unsigned long long>(s.cases),
        static_cast<unsigned long long>(s.solved), static_cast<unsigned long long>(s.infeasible),
        static_cast<unsigned long long>(s.gave_up), seconds_cell(s.solved_s.mean_s).c_str(),
        seconds_cell(s.solved_s.median_s).c_str(), seconds_cell(s.solved_s.max_s).c_str(),
        seconds_cell(s.infeasible_s.mean_s).c_str(), seconds_cell(s.infeasible_s.median_s).c_str(),
        seconds_cell(s.infeasible_s.max_s).c_str(), seconds_cell(s.gave_up_mean_s).c_str());
    out += line;
  }
  return out;
}

std::string format_instance_csv(const std::vector<InstanceSummary>& table) {
  const Origin origin = table.empty() ? Origin::instance : table.front().origin;
  for (const InstanceSummary& s : table)
    if (s.origin != origin)
      throw InputError(std::string("--csv: these results hold cases of origins ") +
                       kOriginNames[static_cast<int>(origin)].data() + " and " +
                       kOriginNames[static_cast<int>(s.origin)].data() +
                       ", whose tables have other columns; aggregate them apart");
  std::string out = "n," + std::string(param_name(origin)) +
                    ",files,cases,solved,infeasible,gave_up,solved_mean_s,solved_median_s,solved_max_s,"
                    "infeasible_mean_s,infeasible_median_s,infeasible_max_s,gave_up_mean_s\n";
  for (const InstanceSummary& s : table) {
    out += std::to_string(s.n) + ',' + (s.param ? std::to_string(*s.param) : std::string()) + ',' +
           std::to_string(s.files) + ',' + std::to_string(s.cases) + ',' + std::to_string(s.solved) + ',' +
           std::to_string(s.infeasible) + ',' + std::to_string(s.gave_up);
    for (const double t : {s.solved_s.mean_s, s.solved_s.median_s, s.solved_s.max_s, s.infeasible_s.mean_s,
                           s.infeasible_s.median_s, s.infeasible_s.max_s, s.gave_up_mean_s})
      out += ',' + seconds_field(t);
    out += '\n';
  }
  return out;
}

namespace {

// How the cases of a run were run: engine, engine_params (the engine's defaults filled in:
// {"restarts": 3} is grigoryan's {}), time_limit_s and max_nodes, from a result file's config.
nlohmann::json engine_settings(const std::filesystem::path& file, const nlohmann::json& config) {
  nlohmann::json how;
  for (const char* key : {"engine", "engine_params", "time_limit_s", "max_nodes"})
    how[key] = config.contains(key) ? config[key] : nlohmann::json();
  try {
    const ExperimentConfig parsed = parse_config(config, file.string() + " (config attribute)");
    nlohmann::json params = nlohmann::json::object();
    for (const ParamSpec& spec : engine_info(parsed.engine).params)
      params[std::string(spec.name)] = param_json(spec, spec.get(parsed.engine_options));
    how["engine_params"] = params;
  } catch (const std::exception&) {
    // a config this nqc does not read: compared as written
  }
  return how;
}

// What differs between two engine_settings: "engine \"a\" and \"b\", engine_params/x 1 and 2".
std::string settings_difference(const nlohmann::json& first, const nlohmann::json& other) {
  std::string what;
  const auto differ = [&what](const std::string& key, const nlohmann::json& a, const nlohmann::json& b) {
    if (a != b) what += (what.empty() ? "" : ", ") + key + " " + a.dump() + " and " + b.dump();
  };
  const bool same_engine = other["engine"] == first["engine"];
  for (const auto& [key, value] : other.items()) {
    const nlohmann::json& before = first[key];
    if (key == "engine_params" && same_engine && value.is_object() && before.is_object()) {
      for (const auto& [param, v] : value.items())  // one engine: the parameters that differ
        differ("engine_params/" + param, before.contains(param) ? before[param] : nlohmann::json(), v);
    } else if (key != "engine_params" || same_engine) {
      differ(key, before, value);
    }
  }
  return what;
}

}  // namespace

void check_pooling(const std::vector<std::string>& paths, bool pooled) {
  std::set<std::filesystem::path> seen;
  std::map<std::string, std::string> config_of;  // config_hash -> the first path
  std::optional<std::pair<std::string, nlohmann::json>> first;
  for (const std::string& p : paths) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(p, ec);
    if (!seen.insert(ec ? std::filesystem::path(p) : canonical).second)
      throw InputError(p + ": given twice (its cases would count twice)");
    const std::filesystem::path file = representative_file(p);
    if (file.empty()) continue;  // the reader of its rows reports it
    Attributes attributes = read_attributes(file);
    const std::string hash = attributes["config_hash"];
    if (const auto [it, fresh] = config_of.emplace(hash, p); !fresh)
      throw InputError(p + " and " + it->second + " hold results of the same config (config_hash " + hash +
                       "): their cases would count twice; give one of them");
    const nlohmann::json config = nlohmann::json::parse(attributes["config"], nullptr, false);
    if (!pooled || !config.is_object()) continue;  // a damaged file: its reader reports it
    const nlohmann::json how = engine_settings(file, config);
    if (!first) {
      first.emplace(p, how);
    } else if (how != first->second) {
      throw InputError(
          first->first + " and " + p + " are runs of other engines or settings (" +
          settings_difference(first->second, how) +
          "): one table would mix them; read each alone, or compare them with python3 -m analysis compare");
    }
  }
}

namespace {

// "canonical, n = 10, k 3, index 5"; "instance FILE, diags 4"; "random, n = 20, free_rows 10, seed S"
std::string pooled_case(const CaseRow& r) {
  const auto origin = static_cast<Origin>(r.origin);
  if (origin == Origin::instance)
    return "instance " + std::string(instance_file(r)) + ", diags " + std::to_string(r.composition_id);
  return std::string(kOriginNames[r.origin]) + ", n = " + std::to_string(r.n) + ", " + std::string(param_name(origin)) +
         " " + std::to_string(r.solution_id) +
         (origin == Origin::canonical ? ", index " + std::to_string(r.composition_id)
                                      : ", seed " + std::to_string(r.seed));
}

}  // namespace

void PooledCases::add(const std::string& path, const std::vector<CaseRow>& rows) {
  const auto key = [](const CaseRow& r) {
    const std::uint64_t n_origin = static_cast<std::uint64_t>(r.n) << 8 | r.origin;
    switch (static_cast<Origin>(r.origin)) {
      case Origin::canonical: return Key{n_origin, r.solution_id, r.composition_id};
      case Origin::instance: return Key{n_origin, xxh64(std::string(instance_file(r))), r.composition_id};
      default: return Key{n_origin, r.seed, 0};  // derive_seed(seed, n, solution_id, composition_id)
    }
  };
  std::vector<std::pair<Key, std::pair<std::size_t, std::uint64_t>>> added;
  added.reserve(rows.size());
  for (const CaseRow& r : rows) {  // in case order: the first case held twice is named
    added.push_back({key(r), {paths_.size(), r.case_id}});
    const auto it = std::ranges::lower_bound(keys_, added.back().first, {}, [](const auto& e) { return e.first; });
    if (it == keys_.end() || it->first != added.back().first) continue;
    const auto origin = static_cast<Origin>(r.origin);
    throw InputError(path + ": case " + std::to_string(r.case_id) + " (" + pooled_case(r) + ") is case " +
                     std::to_string(it->second.second) + " of " + paths_[it->second.first] +
                     ": pooled, it would count twice; give runs whose cases differ (" +
                     (origin == Origin::canonical  ? "other (n, k)"
                      : origin == Origin::instance ? "other files"
                                                   : "another seed, or other points") +
                     ")");
  }
  std::ranges::sort(added);
  std::vector<std::pair<Key, std::pair<std::size_t, std::uint64_t>>> merged;
  merged.reserve(keys_.size() + added.size());
  std::ranges::merge(keys_, added, std::back_inserter(merged));
  keys_ = std::move(merged);
  paths_.push_back(path);
}

namespace {

// The fields of one CSV line (RFC 4180 quoting: "a,b" and "" inside quotes).
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Calls `f` with a zero of the C++ type of a number kind (u64 .. f64); false for other kinds.
template <typename F>
bool with_number_type(ColumnKind kind, F f) {
  switch (kind) {
    case ColumnKind::u64: f(std::uint64_t{}); return true;
    case ColumnKind::i64: f(std::int64_t{}); return true;
    case ColumnKind::u32: f(std::uint32_t{}); return true;
    case ColumnKind::i32: f(std::int32_t{}); return true;
    case ColumnKind::f64: f(double{}); return true;
    default: return false;
  }
}

// Sets column `c` of `row` from its text; false when the text is not of the column's kind.
bool set_field(CaseRow& row, const ColumnInfo& c, const std::string& text) {
  char* at = reinterpret_cast<char*>(&row) + c.offset;
  bool ok = false;
  const auto number = [&]<typename T>(T value) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    ok = ec == std::errc{} && end == text.data() + text.size();
    std::memcpy(at, &value, sizeof value);
  };
  if (with_number_type(c.kind, number)) return ok;
  if (c.kind == ColumnKind::text) {
    std::memcpy(at, text.data(), std::min(text.size(), c.size));
    return text.size() < c.size;
  }
  const std::vector<std::string> names = column_value_names(c.kind);
  const auto it = std::find(names.begin(), names.end(), text);
  *at = static_cast<char>(it - names.begin());
  return it != names.end();
}

// `text` as one CSV field: quoted when it holds a comma, a quote or a line end.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// A field as quoted in a message: at most 40 bytes, then "...".
std::string cut(const std::string& field) { return field.size() <= 40 ? field : field.substr(0, 40) + "..."; }

// What a column's field must be: its enum's names, or its type.
std::string expected_value(const ColumnInfo& c) {
  const std::vector<std::string> names = column_value_names(c.kind);
  if (names.empty()) return std::string("a value of type ") + column_type_name(c.kind, c.size);
  std::string out = "one of";
  for (const std::string& n : names) out += " " + n;
  return out;
}

}  // namespace

std::string rows_csv_header() {
  std::string header;
  for (const ColumnInfo& c : case_columns()) header += std::string(c.name) + ",";
  return header + "source\n";
}

std::string row_csv(const CaseRow& row, const std::string& source) {
  std::string out;
  for (const ColumnInfo& c : case_columns()) {
    const char* at = reinterpret_cast<const char*>(&row) + c.offset;
    const auto number = [&]<typename T>(T v) {
      std::memcpy(&v, at, sizeof v);
      if constexpr (std::is_floating_point_v<T>) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", v);
        out += text;
      } else {
        out += std::to_string(v);
      }
    };
    if (c.kind == ColumnKind::text)
      out += csv_field(instance_file(row));
    else if (!with_number_type(c.kind, number))
      out += column_value_names(c.kind)[static_cast<unsigned char>(*at)];
    out += ',';
  }
  return out + csv_field(source) + '\n';
}

std::vector<CaseRow> parse_rows_csv(std::istream& in, const std::string& name) {
  std::string line;
  std::getline(in, line);
  if (line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 byte-order mark, as every text nqc reads
  const std::vector<std::string> header = csv_fields(line);
  for (std::size_t i = 0; i < header.size(); ++i)
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), header[i]) !=
        header.begin() + static_cast<std::ptrdiff_t>(i))
      throw InputError(name + ":1: column '" + text::escaped(header[i].substr(0, 40)) + "' given twice");
  std::vector<std::pair<const ColumnInfo*, std::size_t>> at;  // column, field index
  for (const ColumnInfo& c : case_columns()) {
    const auto it = std::find(header.begin(), header.end(), c.name);
    if (it == header.end()) throw InputError(name + ":1: no column '" + std::string(c.name) + "'");
    at.emplace_back(&c, static_cast<std::size_t>(it - header.begin()));
  }
  std::vector<CaseRow> rows;
  for (std::size_t number = 2; std::getline(in, line); ++number) {
    const std::vector<std::string> fields = csv_fields(line);
    if (fields.size() != header.size())
      throw InputError(name + ":" + std::to_string(number) + ": " + std::to_string(fields.size()) +
                       " fields, the header has " + std::to_string(header.size()));
    CaseRow& row = rows.emplace_back();
    const std::string where = name + ":" + std::to_string(number) + ": ";
    for (const auto& [c, i] : at)
      if (!set_field(row, *c, fields[i]))
        throw InputError(where + std::string(c->name) + " '" + text::escaped(cut(fields[i])) + "': expected " +
                         expected_value(*c));
    // The rule of rows from any source (results.hpp); the time the analysis passes in wall_s
    // (cpu_s, or seconds per placed queen) is seconds too.
    if (const std::string why = implausible(row); !why.empty()) throw InputError(where + why);
  }
  return rows;
}

}  // namespace nqc
