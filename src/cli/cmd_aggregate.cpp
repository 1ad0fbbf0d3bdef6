// aggregate: the per-n table of result files and directories.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "experiment/aggregate.hpp"
#include "experiment/launches.hpp"
#include "experiment/pinning.hpp"
#include "experiment/result_schema.hpp"
#include "experiment/results.hpp"
#include "system/durable.hpp"
#include "system/errors.hpp"
#include "system/std_stream.hpp"

namespace nqc::cli {
namespace {

// An unfinished run: how much of its plan (DIR/plan.json's case count) the table covers.
void warn_if_unfinished(const std::filesystem::path& p, std::size_t rows) {
  if (!is_unfinished_run(p)) return;
  std::string planned = "its";
  try {
    planned = std::to_string(read_plan_file(p).cases);
  } catch (const std::exception&) {  // no plan.json yet, or damaged: the count is left out
  }
  std::fprintf(stderr, "nqc: warning: %s: the run is not finished (no results.h5): the table covers %zu of %s cases\n",
               p.c_str(), rows, planned.c_str());
}

// The rows of each of `paths` in turn, handed to `use` once checked (warn_if_unfinished;
// PooledCases with `pool`, after check_pooling).
template <class Use>
void for_each_run(const std::vector<std::string>& paths, bool pool, const Use& use) {
  PooledCases pooled;
  for (const std::string& p : paths) {
    const std::vector<CaseRow> rows = load_rows(p);
    warn_if_unfinished(p, rows.size());
    if (pool) pooled.add(p, rows);
    use(p, rows);
  }
}

// `output` (of `option`) may not be one of `inputs`, nor a directory's results.h5 or shard file.
void refuse_output_onto_inputs(const std::string& command, const std::string& option, const std::string& output,
                               const std::vector<std::string>& inputs) {
  if (output.empty() || is_std_stream(output)) return;
  const auto target = resolved_output_path(output);
  for (const auto& p : inputs) {
    std::error_code ec;
    const auto input = std::filesystem::weakly_canonical(p, ec);
    if (target == input || target == input / "results.h5" || target.parent_path() == input / "shards")
      throw InputError(option + ": " + output + " is an input of this " + command + "; choose another file");
  }
}

// Per result file of `paths`: its path, root attributes, config, rows and launches, as JSON.
nlohmann::json sources_json(const std::vector<std::string>& paths) {
  nlohmann::json sources = nlohmann::json::array();
  for (const std::string& p : paths)
    for (const std::filesystem::path& file : result_files(p)) {
      const ResultFile content = read_result_file(file, kRowCount | kLaunches);
      nlohmann::json attrs = nlohmann::json::object(), launches = nlohmann::json::array();
      for (const auto& [name, value] : content.attrs)
        attrs[name] =
            attribute_type(name) == AttributeType::integer ? nlohmann::json(std::stoll(value)) : nlohmann::json(value);
      for (const Launch& l : content.launches) launches.push_back(nlohmann::json::parse(launch_json(l)));
      sources.push_back({{"path", file.string()},
                         {"attrs", attrs},
                         {"config", config_attribute(content.attrs, file)},
                         {"rows", content.row_count},
                         {"launches", launches}});
    }
  return sources;
}

}  // namespace

Runner add_rows(CLI::App& app) {
  auto* cmd = app.add_subcommand("rows", "Print the rows of result files or directories as CSV, for the analysis");
  struct Args {
    std::vector<std::string> paths;
    std::string sources;
    bool pool = false;
  };
  auto a = std::make_shared<Args>();
  cmd->add_option("PATH", a->paths, "results directories or HDF5 result files")->required();
  cmd->add_option("--sources", a->sources, "also write each result file's attributes, config and launches as JSON");
  cmd->add_flag("--pool", a->pool, "the rows make one table: refuse runs of other engines or settings (as aggregate)");
  cmd->footer("Columns: those of nqc info --columns (enums by name), then source (docs/cli.md).");
  return [a] {
    for (const auto& p : a->paths) refuse_std_stream_results("PATH", p);
    if (is_std_stream(a->sources))
      throw InputError("--sources: - is standard output, which the rows take; give a file");
    refuse_output_onto_inputs("listing", "--sources", a->sources, a->paths);
    check_pooling(a->paths, a->pool);
    for_each_run(a->paths, a->pool, [&](const std::string& p, const std::vector<CaseRow>& rows) {
      if (&p == &a->paths.front()) std::fputs(rows_csv_header().c_str(), stdout);  // once its checks passed
      const bool shards = is_unfinished_run(p);  // its shard (or partial) files, by shard_id
      std::uint64_t shard = UINT64_MAX;
      std::string source = representative_file(p).string();
      for (const CaseRow& row : rows) {
        if (shards && row.shard_id != shard) {
          shard = row.shard_id;
          const std::filesystem::path done = shard_path(p, shard);
          std::error_code ec;
          source = (std::filesystem::exists(done, ec) ? done : partial_path(p, shard)).string();
        }
        std::fputs(row_csv(row, source).c_str(), stdout);
      }
    });
    if (!a->sources.empty()) write_text(a->sources, sources_json(a->paths).dump() + '\n');
    return 0;
  };
}

namespace {

// The rows of result paths (one table), or of `rows_csv` (nqc rows' CSV; "-": standard input).
std::vector<CaseRow> aggregate_inputs(const std::vector<std::string>& paths, const std::string& rows_csv,
                                      const std::string& csv) {
  if (paths.empty() == rows_csv.empty()) throw InputError("aggregate: give PATH... or --rows FILE (one of the two)");
  if (!rows_csv.empty()) {
    if (is_std_stream(rows_csv)) return parse_rows_csv(std::cin, "<stdin>");
    refuse_output_onto_inputs("aggregate", "--csv", csv, {rows_csv});
    std::error_code ec;
    if (!std::filesystem::is_regular_file(rows_csv, ec))
      throw InputError(rows_csv + ": not a regular file; expected the CSV of nqc rows");
    std::ifstream in(rows_csv, std::ios::binary);
    if (!in) throw InputError(rows_csv + ": cannot open");
    return parse_rows_csv(in, rows_csv);
  }
  for (const auto& p : paths) refuse_std_stream_results("PATH", p);
  check_pooling(paths, true);
  refuse_output_onto_inputs("aggregate", "--csv", csv, paths);
  std::vector<CaseRow> rows;
  for_each_run(paths, true, [&](const std::string&, const std::vector<CaseRow>& more) {
    rows.insert(rows.end(), more.begin(), more.end());
  });
  return rows;
}

// Prints the tables of `rows` (derived cases apart from the others), the CSV to `csv` if given.
void print_tables(const std::vector<CaseRow>& rows, const std::string& csv) {
  std::vector<CaseRow> generated;
  std::copy_if(rows.begin(), rows.end(), std::back_inserter(generated),
               [](const CaseRow& r) { return is_derived_row(r); });
  const bool any_instances = generated.size() < rows.size();
  const auto table = summarize(generated);
  const auto instance_table = summarize_instances(rows);
  if (!csv.empty()) {
    if (!generated.empty() && any_instances)
      throw InputError(
          "--csv: these results hold derived cases and cases of other origins, whose tables have other columns; "
          "aggregate them apart");
    write_text(csv, any_instances ? format_instance_csv(instance_table) : format_csv(table));
  }
  FILE* text = text_stream({{"--csv", csv}});
  std::string shown = generated.empty() && any_instances ? "" : format_table(table);
  if (any_instances) shown += (shown.empty() ? "" : "\n") + format_instance_table(instance_table);
  std::fputs(shown.c_str(), text);
}

}  // namespace

Runner add_aggregate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "aggregate", "Print the table of result files or directories: per n, and per n and diags for instance runs");
  auto paths = std::make_shared<std::vector<std::string>>();
  auto csv = std::make_shared<std::string>();
  auto rows_csv = std::make_shared<std::string>();
  cmd->add_option("PATH", *paths, "results directories or HDF5 result files");
  cmd->add_option("--rows", *rows_csv,
                  "instead of PATH: rows as nqc rows prints them (CSV; - for stdin), e.g. a part of a run's rows");
  cmd->add_option("--csv", *csv,
                  "also write the table as CSV to this file; - for stdout (the table then going to stderr)");
  cmd->footer("The columns, and which runs pool into one table: docs/cli.md, docs/results.md.");
  return [paths, csv, rows_csv] {
    print_tables(aggregate_inputs(*paths, *rows_csv, *csv), *csv);
    return 0;
  };
}

}  // namespace nqc::cli
