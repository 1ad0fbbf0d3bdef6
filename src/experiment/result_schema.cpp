// The schema of result files as data (see result_schema.hpp).
#include "experiment/result_schema.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "core/engine.hpp"
#include "experiment/results.hpp"

namespace nqc {

namespace {

constexpr std::array kColumns = {
#define NQC_COLUMN_INFO(name, type, kind, doc) \
  ColumnInfo{#name, ColumnKind::kind, offsetof(CaseRow, name), sizeof(CaseRow::name), doc},
    NQC_CASE_COLUMNS(NQC_COLUMN_INFO)
#undef NQC_COLUMN_INFO
};

constexpr std::array kLaunchColumns = {
#define NQC_LAUNCH_COLUMN_INFO(name, type, kind, width, init, doc) \
  LaunchColumnInfo{#name, ColumnKind::kind, width, doc},
    NQC_LAUNCH_COLUMNS(NQC_LAUNCH_COLUMN_INFO)
#undef NQC_LAUNCH_COLUMN_INFO
};

constexpr AttributeInfo attribute(std::string_view name, std::string RootAttributes::*member, AttributeFiles files,
                                  std::string_view doc) {
  return {name, AttributeType::text, files, doc, member, nullptr};
}
constexpr AttributeInfo attribute(std::string_view name, std::int64_t RootAttributes::*member, AttributeFiles files,
                                  std::string_view doc) {
  return {name, AttributeType::integer, files, doc, nullptr, member};
}

constexpr std::array kAttributeTable = {
#define NQC_ROOT_ATTRIBUTE_INFO(name, type, files, doc) \
  attribute(#name, &RootAttributes::name, AttributeFiles::files, doc),
    NQC_ROOT_ATTRIBUTES(NQC_ROOT_ATTRIBUTE_INFO)
#undef NQC_ROOT_ATTRIBUTE_INFO
        AttributeInfo{
            kTextChecksum, AttributeType::checksum, AttributeFiles::all,
            "XXH64 of the text attributes' names and heap bytes, then each heap collection's offset and bytes: "
            "checked before they are read"},
};

constexpr std::array<std::string_view, 3> kFilesNames = {"all", "shard", "merged"};               // by AttributeFiles
constexpr std::array<std::string_view, 3> kAttributeTypeNames = {"string", "int64", "checksum"};  // by AttributeType

nlohmann::json values_json(ColumnKind kind) {
  nlohmann::json values = nlohmann::json::object();
  const std::vector<std::string> names = column_value_names(kind);
  for (std::size_t i = 0; i < names.size(); ++i) values[names[i]] = i;
  return values;
}

}  // namespace

std::span<const ColumnInfo> case_columns() { return kColumns; }

std::vector<std::string> column_value_names(ColumnKind kind) {
  std::vector<std::string> names;
  switch (kind) {
    case ColumnKind::outcome:
      for (const std::string_view name : kOutcomeNames) names.emplace_back(name);
      break;
    case ColumnKind::flag: names = {"FALSE", "TRUE"}; break;
    case ColumnKind::engine:  // by code: engine_infos() checks that they are 0..N-1
      names.resize(engine_infos().size());
      for (const EngineInfo& e : engine_infos()) names[e.code] = e.name;
      break;
    case ColumnKind::stop_reason:
      for (const std::string_view r : kStopReasonNames) names.emplace_back(r);
      break;
    case ColumnKind::origin:
      for (const std::string_view o : kOriginNames) names.emplace_back(o);
      break;
    default: break;
  }
  return names;
}

std::string column_type_name(ColumnKind kind, std::size_t bytes) {
  constexpr std::array<const char*, 11> kNames = {"uint64",     "int64",     "uint32",    "int32",
                                                  "float64",    "enum int8", "bool",      "enum uint8",
                                                  "enum uint8", "string",    "enum uint8"};
  return kind == ColumnKind::text ? "string " + std::to_string(bytes) + " bytes" : kNames[static_cast<int>(kind)];
}

std::uint8_t engine_code(std::string_view engine) { return engine_info(engine).code; }

std::string_view engine_name(std::uint8_t code) {
  const EngineInfo* e = engine_of_code(code);
  return e != nullptr ? std::string_view(e->name) : std::string_view();
}

std::string_view stop_reason_name(std::uint8_t code) {
  return code < std::size(kStopReasonNames) ? kStopReasonNames[code] : std::string_view();
}

std::span<const AttributeInfo> root_attributes() { return kAttributeTable; }

std::span<const LaunchColumnInfo> launch_columns() { return kLaunchColumns; }

AttributeType attribute_type(std::string_view name) {
  for (const AttributeInfo& a : kAttributeTable)
    if (a.name == name) return a.type;
  return AttributeType::text;
}

nlohmann::json result_schema_json() {
  nlohmann::json columns = nlohmann::json::array();
  for (const ColumnInfo& c : kColumns) {
    nlohmann::json column = {
        {"name", c.name}, {"type", column_type_name(c.kind, c.size)}, {"description", c.description}};
    column["run_dependent"] = std::ranges::find(kRunDependentColumns, c.name) != kRunDependentColumns.end();
    if (!column_value_names(c.kind).empty()) column["values"] = values_json(c.kind);
    columns.push_back(std::move(column));
  }
  nlohmann::json attributes = nlohmann::json::array();
  for (const AttributeInfo& a : kAttributeTable)
    attributes.push_back({{"name", a.name},
                          {"type", kAttributeTypeNames[static_cast<int>(a.type)]},
                          {"files", kFilesNames[static_cast<int>(a.files)]},
                          {"description", a.description}});
  nlohmann::json launches = nlohmann::json::array();
  for (const LaunchColumnInfo& c : kLaunchColumns)
    launches.push_back({{"name", c.name}, {"type", column_type_name(c.kind, c.bytes)}, {"description", c.description}});
  nlohmann::json run_files = nlohmann::json::array();
  for (const RunFile& f : kRunFiles)
    run_files.push_back({{"name", f.name}, {"what", f.what}, {"folder", f.folder}, {"marks_run", f.marks_run}});
  return {{"schema_version", schema_version()},  {"run_files", std::move(run_files)},
          {"max_board_size", kMaxBoardSize},     {"columns", std::move(columns)},
          {"attributes", std::move(attributes)}, {"launch_columns", std::move(launches)}};
}

std::string result_schema_text() {
  const auto cell = [](std::string_view text, std::size_t width) {
    std::string out(text);
    out.resize(std::max(out.size() + 1, width), ' ');
    return out;
  };
  const auto header = [&](std::string_view first, std::size_t type_width) {
    return cell(first, 23) + cell("type", type_width) + (type_width == 9 ? cell("files", 7) : "") + "description\n";
  };
  std::string out =
      "Result files, schema " + schema_version() + ". Dataset `cases`, one row per case:\n" + header("  column", 19);
  for (const ColumnInfo& c : kColumns) {
    std::string text(c.description);
    const std::vector<std::string> names = column_value_names(c.kind);
    for (std::size_t i = 0; c.kind != ColumnKind::flag && i < names.size(); ++i)
      text += (i ? ", " : " (") + std::to_string(i) + " " + names[i] + (i + 1 == names.size() ? ")" : "");
    out += cell("  " + std::string(c.name), 23) + cell(column_type_name(c.kind, c.size), 19) + text + "\n";
  }
  out += "Root attributes (files: all; shard = shard and partial files; merged = results.h5):\n" +
         header("  attribute", 9);
  for (const AttributeInfo& a : kAttributeTable)
    out += cell("  " + std::string(a.name), 23) + cell(kAttributeTypeNames[static_cast<int>(a.type)], 9) +
           cell(kFilesNames[static_cast<int>(a.files)], 7) + std::string(a.description) + "\n";
  out += "Dataset `launches` (results.h5), one row per launch of nqc run on the directory:\n" + header("  column", 19);
  for (const LaunchColumnInfo& c : kLaunchColumns)
    out += cell("  " + std::string(c.name), 23) + cell(column_type_name(c.kind, c.bytes), 19) +
           std::string(c.description) + "\n";
  return out;
}

}  // namespace nqc
