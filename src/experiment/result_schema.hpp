// The schema of result files as data (case_row.hpp, launches.hpp, root_attributes.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/case_row.hpp"
#include "experiment/launches.hpp"
#include "experiment/root_attributes.hpp"

namespace nqc {

/// One column of the `cases` dataset.
struct ColumnInfo {
  std::string_view name;         ///< member name in the file and in CaseRow
  ColumnKind kind;               ///< how it is stored
  std::size_t offset;            ///< offsetof(CaseRow, name)
  std::size_t size;              ///< sizeof the CaseRow member (bytes)
  std::string_view description;  ///< one line for users
};

/// Every column, in CaseRow's order (NQC_CASE_COLUMNS).
std::span<const ColumnInfo> case_columns();

/// The names of an enum column kind's values by code; empty for the other kinds.
std::vector<std::string> column_value_names(ColumnKind kind);

/// The kind's type as users read it ("uint64", "enum int8", "string N bytes" with N = `bytes`, ...).
std::string column_type_name(ColumnKind kind, std::size_t bytes = 0);

/// One column of the `launches` table of results.h5 (NQC_LAUNCH_COLUMNS, launches.hpp).
struct LaunchColumnInfo {
  std::string_view name;
  ColumnKind kind;    ///< u32, i32, u64, text or flag
  std::size_t bytes;  ///< text: the stored width (longer values are truncated); else 0
  std::string_view description;
};

/// Every column of the `launches` table, in order.
std::span<const LaunchColumnInfo> launch_columns();

/// The registry's EngineInfo::code of `engine`; throws std::invalid_argument for another name.
std::uint8_t engine_code(std::string_view engine);
/// The name of engine code `code` ("" for a code no engine has).
std::string_view engine_name(std::uint8_t code);
/// The name of StopReason code `code` ("" for a code no reason has).
std::string_view stop_reason_name(std::uint8_t code);

/// How a root attribute is stored.
enum class AttributeType : std::uint8_t {
  text,      ///< variable-length UTF-8 string (h5py: str)
  integer,   ///< int64
  checksum,  ///< text_checksum: 1 + 2N uint64 (formats/hdf5_text.hpp)
};

/// The attribute that checks the text attributes before they are read (formats/hdf5_text.hpp).
inline constexpr std::string_view kTextChecksum = "text_checksum";

/// One root attribute of result files (NQC_ROOT_ATTRIBUTES, and kTextChecksum).
struct AttributeInfo {
  std::string_view name;
  AttributeType type;
  AttributeFiles files;
  std::string_view description;
  std::string RootAttributes::*text = nullptr;      ///< its member, for type text
  std::int64_t RootAttributes::*integer = nullptr;  ///< its member, for type integer
};

/// Every root attribute nqc writes, in NQC_ROOT_ATTRIBUTES's order, text_checksum last.
std::span<const AttributeInfo> root_attributes();
/// The type of root attribute `name` (text for a name not in root_attributes()).
AttributeType attribute_type(std::string_view name);
/// Whether a file of kind `kind` (shard or merged) carries attributes of `files`.
constexpr bool carries(AttributeFiles kind, AttributeFiles files) {
  return files == AttributeFiles::all || files == kind;
}

/// The whole schema as JSON (analysis/result_schema.json).
nlohmann::json result_schema_json();
/// The same as text for `nqc info --columns`: one line per column, then per attribute.
std::string result_schema_text();

}  // namespace nqc
