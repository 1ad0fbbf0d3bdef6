// "-" as a file name, for every option of nqc that names a file: standard output for an output,
// standard input for an input (docs/cli.md). An option that cannot be a stream refuses "-" with
// one line; text beside a data output "-" (a summary, a table) goes to standard error.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "system/durable.hpp"

namespace nqc {

/// True when `path` is exactly "-" (standard output or input); "./-" names a file called "-".
bool is_std_stream(const std::filesystem::path& path);

/// Throws nqc::InputError "OPTION: '-' (standard output) cannot be WHAT" (standard input when
/// `input`) when `value` is "-".
void refuse_std_stream(const std::string& option, const std::filesystem::path& value, const std::string& what,
                       bool input = false);

/// Options and their values: {"--csv", "-"}, {"--trials-csv", "out.csv"}.
using NamedOutputs = std::vector<std::pair<std::string, std::string>>;

/// Throws nqc::InputError "A and B: both are '-' (standard output); give a file to all but
/// one" when two or more of `outputs` are "-".
void require_one_stdout(const NamedOutputs& outputs);

/// True when the outputs `a` and `b` are one file: equivalent or the same resolved_output_path.
bool same_output_file(const std::filesystem::path& a, const std::filesystem::path& b);

/// Where text beside `outputs` goes (a summary): stdout, or stderr when one of them is "-".
FILE* text_stream(const NamedOutputs& outputs);

/// A text output: the file `path` (a ReplacingOutput, named by close()), or stdout for "-".
class TextOutput {
 public:
  /// Opens `path`. Throws "PATH: cannot write: REASON" as nqc::throw_errno.
  explicit TextOutput(const std::filesystem::path& path);
  TextOutput(const TextOutput&) = delete;
  TextOutput& operator=(const TextOutput&) = delete;

  /// The stream to write to (std::cout for "-").
  std::ostream& stream();
  /// Flushes; throws "PATH: cannot write: REASON" ("<stdout>: ..." for "-") when any write failed.
  void close();
  /// The name for messages: the path, or "<stdout>".
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  std::string name_;
  bool stdout_ = false;
  std::optional<ReplacingOutput> replacing_;
  std::ofstream file_;
};

}  // namespace nqc
