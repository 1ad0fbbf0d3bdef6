// info: what a result file or results directory holds.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/launches.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {

namespace fs = std::filesystem;

nlohmann::json config_attribute(const Attributes& attrs, const fs::path& file) {
  const auto it = attrs.find("config");
  nlohmann::json config = nlohmann::json::parse(it == attrs.end() ? "{}" : it->second, nullptr, false);
  if (!config.is_object()) throw InputError(file.string() + " (config attribute): not a JSON object");
  return config;
}

bool is_unfinished_run(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && !fs::exists(path / "results.h5", ec);
}

namespace {

// A group's outcome counts (solved, infeasible, gave_up), false negatives and instance files.
struct Counts {
  std::array<std::uint64_t, 3> outcomes{};
  std::uint64_t false_negatives = 0;
  std::set<std::string, std::less<>> files;
  [[nodiscard]] std::uint64_t cases() const { return outcomes[0] + outcomes[1] + outcomes[2]; }
};

std::string shown(const std::string& s) { return s.empty() ? "-" : s; }

// Derived cases per n, or other origins' per n and parameter ("-": composition files); the total.
void print_table(const std::map<InstanceGroup, Counts>& groups, bool instances) {
  const auto print_cells = [](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) std::printf(i == 0 ? "%12s" : " %12s", cells[i].c_str());
    std::printf("\n");
  };
  // One row: n, (instances) diags and files, cases, outcomes, (generated cases) false negatives.
  const auto print_row = [&](const std::string& n, const std::string& diags, const Counts& c) {
    std::vector<std::string> row{n};
    if (instances) row.insert(row.end(), {diags, std::to_string(c.files.size())});
    row.push_back(std::to_string(c.cases()));
    for (const std::uint64_t o : c.outcomes) row.push_back(std::to_string(o));
    if (!instances) row.push_back(std::to_string(c.false_negatives));
    print_cells(row);
  };
  if (instances)
    print_cells({"n", std::string(param_name(groups.begin()->first.origin)), "files", "cases", "solved", "infeasible",
                 "gave_up"});
  else
    print_cells({"n", "cases", "solved", "infeasible", "gave_up", "false_neg"});
  Counts total;
  for (const auto& [g, c] : groups) {
    print_row(std::to_string(g.n), g.param ? std::to_string(*g.param) : "-", c);
    for (std::size_t o = 0; o < 3; ++o) total.outcomes[o] += c.outcomes[o];
    total.false_negatives += c.false_negatives;
    total.files.insert(c.files.begin(), c.files.end());
  }
  print_row("total", "", total);
}

// Prints `stored`, or (`from_records`) DIR/launches; "-": a launch that never recorded its end.
void print_launches(const fs::path& path, const std::vector<Launch>& stored, bool from_records) {
  std::vector<std::string> problems;
  const std::vector<Launch> launches = from_records ? read_launches(path, &problems) : stored;
  for (const std::string& p : problems) std::fprintf(stderr, "nqc: warning: %s\n", p.c_str());
  if (launches.empty()) {
    std::printf("launches: none recorded (a shard or partial file holds none: its directory and results.h5 do)\n");
    return;
  }
  std::printf("launches: %zu\n%4s %-20s %-20s %6s %-6s %-20s %-12s %6s %8s %10s %s\n", launches.size(), "id",
              "start_utc", "end_utc", "ranks", "part", "hosts", "slurm", "exit", "shards", "cases", "merged");
  for (const Launch& l : launches) {
    const std::string part = l.parts > 1 ? std::to_string(l.part) + "/" + std::to_string(l.parts) : "-";
    std::string slurm = l.slurm_array_task.empty() ? l.slurm_job_id : l.slurm_array_task;
    if (!l.slurm_restart_count.empty() && l.slurm_restart_count != "0") slurm += " r" + l.slurm_restart_count;
    const bool ended = l.exit_status >= 0;
    const auto count = [&](std::uint64_t v) { return ended || v != 0 ? std::to_string(v) : std::string("-"); };
    std::printf("%4u %-20s %-20s %6d %-6s %-20s %-12s %6s %8s %10s %s\n", l.id, shown(l.start_utc).c_str(),
                shown(l.end_utc).c_str(), l.world_size, part.c_str(), shown(l.hosts).c_str(), shown(slurm).c_str(),
                ended ? std::to_string(l.exit_status).c_str() : "-", count(l.shards_done).c_str(),
                count(l.cases_done).c_str(), l.merged ? "yes" : "no");
  }
}

// The outcomes of a set of result files, by n (generated cases) and by instance group.
struct Tally {
  std::map<InstanceGroup, Counts> by_n, by_group;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  ///< each file's case ids, lowest and highest
};

Tally tally(const std::vector<fs::path>& files) {
  Tally t;
  for (const fs::path& f : files) {
    t.ranges.emplace_back(UINT64_MAX, 0);
    read_rows_in_batches(f, 1u << 16, [&](const std::vector<CaseRow>& rows) {
      for (const CaseRow& r : rows) {
        t.ranges.back().first = std::min(t.ranges.back().first, r.case_id);
        t.ranges.back().second = std::max(t.ranges.back().second, r.case_id);
        const bool instance = is_instance_row(r);
        Counts& c = !is_derived_row(r) ? t.by_group[instance_group(r)] : t.by_n[{Origin::derived, r.n, std::nullopt}];
        ++c.outcomes[static_cast<std::size_t>(r.outcome)];
        c.false_negatives += r.false_negative;
        if (const std::string_view file = instance_file(r); instance && !c.files.contains(file)) c.files.emplace(file);
      }
    });
  }
  return t;
}

// Prints what `path` holds.
void info(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) throw InputError(path.string() + ": no such file or directory");
  const bool dir = fs::is_directory(path, ec);
  const std::vector<fs::path> files = result_files(path);
  if (files.empty() && read_launches(path).empty())
    throw InputError(path.string() + ": no result files (expected " + (path / "shards").string() + "/*.h5 or " +
                     (path / "results.h5").string() + ")");
  if (files.empty()) {
    std::printf("%s: no result files yet (no shard has finished)\n", path.c_str());
    return print_launches(path, {}, true);
  }
  const ResultFile head = read_result_file(files.front(), kAttributes | kLaunches);
  const auto attr = [&](const char* key) {
    const auto it = head.attrs.find(key);
    return shown(it == head.attrs.end() ? std::string() : it->second);
  };
  const Tally t = tally(files);
  if (dir && files.size() > 1) check_disjoint_cases(path, files, t.ranges);
  std::printf("%s: config %s, schema %s, nqc %s (git %s)\n", path.c_str(),
              config_attribute(head.attrs, files.front()).value("name", "?").c_str(), attr("schema_version").c_str(),
              attr("nqc_version").c_str(), attr("git_revision").c_str());
  std::printf("config_hash %s, plan_hash %s, %s .. %s\n", attr("config_hash").c_str(), attr("plan_hash").c_str(),
              attr("start_utc").c_str(), attr("end_utc").c_str());
  if (dir && files.front().filename() != "results.h5") {
    const auto partials = static_cast<std::size_t>(std::count_if(
        files.begin(), files.end(), [](const fs::path& f) { return f.filename().string().rfind("partial-", 0) == 0; }));
    std::printf("not merged: %zu shard file%s and %zu partial file%s read (the run goes on, or waits for --resume)\n",
                files.size() - partials, files.size() - partials == 1 ? "" : "s", partials, partials == 1 ? "" : "s");
  }
  // A run is of one origin; a file holding derived cases and others would show both tables.
  if (!t.by_n.empty() || t.by_group.empty()) print_table(t.by_n, false);
  if (!t.by_group.empty()) print_table(t.by_group, true);
  // The launches: results.h5's table, or (a directory not merged yet) its launch records.
  print_launches(path, head.launches, dir && head.launches.empty());
}

// nqc's constants that scripts need (jobs/submit): the exit codes and the largest board size.
nlohmann::json constants_json() {
  nlohmann::json codes = nlohmann::json::array();
  for (const ExitCodeInfo& e : kExitCodes)
    codes.push_back({{"code", e.code}, {"name", std::string(e.name)}, {"meaning", std::string(e.meaning)}});
  return {{"exit_codes", codes}, {"max_board_size", kMaxBoardSize}};
}

}  // namespace

Runner add_info(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "info",
      "Show what a result file or results directory holds: config, schema, cases by n (instance runs: by n and "
      "diags) and outcome, launches");
  struct Args {
    std::string path;
    bool columns = false, constants = false, json = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("RESULTS", a->path, "a result file (results.h5, a shard file) or a results directory");
  auto* columns_flag = cmd->add_flag(
      "--columns", a->columns,
      "print the layout of result files instead: the columns of `cases` (type, description, enum values) and "
      "the root attributes");
  cmd->add_flag("--constants", a->constants,
                "print nqc's constants for scripts instead: the exit codes (code, name, meaning) and the largest "
                "board size (max_board_size)")
      ->excludes(columns_flag);
  cmd->add_flag("--json", a->json,
                "with --columns or --constants: as JSON (analysis/result_schema.json is --columns'; jobs/submit "
                "reads --constants')");
  cmd->footer(
      "Reads the rows in batches (any size fits in memory). Exit-status '-' in the launches table: the launch never "
      "recorded its end (it runs, or it was killed).");
  return [a] {
    if (a->json && !a->columns && !a->constants) throw InputError("--json: goes with --columns or --constants");
    if (!a->columns && !a->constants) {
      if (a->path.empty())
        throw InputError("info: RESULTS is required (a result file or a results directory), or --columns");
      refuse_std_stream_results("RESULTS", a->path);
      info(a->path);
      return static_cast<int>(kExitOk);
    }
    const char* option = a->columns ? "--columns" : "--constants";
    if (!a->path.empty()) throw InputError(std::string("info: give RESULTS or ") + option + ", not both");
    const std::string text =
        a->constants
            ? exit_codes_text() + "Largest board size (max_board_size): " + std::to_string(kMaxBoardSize) + "\n"
            : result_schema_text();
    std::fputs(
        a->json ? ((a->constants ? constants_json() : result_schema_json()).dump(2) + "\n").c_str() : text.c_str(),
        stdout);
    return static_cast<int>(kExitOk);
  };
}

}  // namespace nqc::cli
