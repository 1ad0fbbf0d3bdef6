// load_config: a config file's text (one text discipline, duplicate keys refused), parse_config,
// and its relative paths taken from the config file's directory.
#include <set>

#include "experiment/config.hpp"
#include "system/errors.hpp"
#include "formats/text_input.hpp"

namespace nqc {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The parsed text of `file`. Throws nqc::InputError for invalid JSON (with line and column) or a
// key written twice in one object (nlohmann keeps the last one silently).
json parse_file(const fs::path& file) {
  const std::string name = file.string();
  // A byte-order mark dropped and CR / CRLF made LF (text_input.hpp), so that the parser's line
  // numbers are an editor's.
  const std::string text = text::normalized(text::read_small_file(file, 16u << 20, "config"));
  std::vector<std::set<std::string>> keys;  // one set of keys per open object
  std::string duplicate;
  const json::parser_callback_t check_keys = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start)
      keys.emplace_back();
    else if (event == json::parse_event_t::object_end && !keys.empty())
      keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() &&
             !keys.back().insert(parsed.get<std::string>()).second && duplicate.empty())
      duplicate = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text, check_keys);
  } catch (const json::exception& e) {
    // e.what() is "[json.exception.parse_error.101] parse error at line L, column C: ..."
    std::string what = e.what();
    const auto cut = what.find("] ");
    throw InputError(name + ": invalid JSON: " + text::escaped(cut == std::string::npos ? what : what.substr(cut + 2)));
  }
  if (!duplicate.empty()) throw InputError(name + ": invalid JSON: duplicate key \"" + text::escaped(duplicate) + "\"");
  return j;
}

// `path` taken from `base` (the config file's directory) when relative.
fs::path from_base(const fs::path& base, const fs::path& path) {
  return path.is_relative() ? (base / path).lexically_normal() : path;
}

}  // namespace

ExperimentConfig load_config(const fs::path& file) {
  const std::string name = file.string();
  ExperimentConfig config = parse_config(parse_file(file), name);
  std::error_code ec;
  const fs::path base = file.parent_path();
  // One base for every relative path (config_help, "Paths"). The output directory is the
  // base joined with it (a relative config path keeps it relative to the working directory,
  // as a log reads best); instance paths become absolute, in the config and in the resolved
  // config that result files store, so that a rerun or resume works from any working directory.
  config.output = from_base(base, config.output).string();
  config.resolved["output"] = config.output;
  for (std::size_t i = 0; i < config.instances.files.size(); ++i) {
    std::string& f = config.instances.files[i];
    const std::string at = name + ": /instances/files/" + std::to_string(i) + ": ";
    f = fs::absolute(from_base(base, f), ec).lexically_normal().string();
    if (!fs::exists(f, ec)) throw InputError(at + f + ": no such file or directory");
    if (fs::is_directory(f, ec)) {
      bool any = false;
      for (const auto& entry : fs::directory_iterator(f, ec))
        any = any ||
              (entry.is_regular_file() && (entry.path().extension() == ".param" || entry.path().extension() == ".txt"));
      if (!any)
        throw InputError(at + f +
                         ": no instance files (*.param, *.txt) in this directory (subdirectories are not searched)");
    } else if (!fs::is_regular_file(f, ec)) {
      throw InputError(at + f + ": not a regular file or a directory");
    }
    config.resolved["instances"]["files"][i] = f;
  }
  return config;
}

}  // namespace nqc
