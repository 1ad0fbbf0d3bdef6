#include "system/std_stream.hpp"

#include <cerrno>
#include <cstring>
#include <iostream>

#include "system/errors.hpp"

namespace nqc {

bool is_std_stream(const std::filesystem::path& path) { return path.native() == "-"; }

void refuse_std_stream(const std::string& option, const std::filesystem::path& value, const std::string& what,
                       bool input) {
  if (is_std_stream(value))
    throw InputError(option + ": '-' (standard " + (input ? "input" : "output") + ") cannot be " + what);
}

void require_one_stdout(const NamedOutputs& outputs) {
  std::vector<std::string> dashes;
  for (const auto& [option, value] : outputs)
    if (is_std_stream(value)) dashes.push_back(option);
  if (dashes.size() < 2) return;
  std::string names;
  for (std::size_t i = 0; i < dashes.size(); ++i)
    names += (i == 0 ? "" : i + 1 == dashes.size() ? " and " : ", ") + dashes[i];
  throw InputError(names + ": " + (dashes.size() == 2 ? "both" : "all") +
                   " are '-' (standard output); give a file to all but one");
}

bool same_output_file(const std::filesystem::path& a, const std::filesystem::path& b) {
  if (is_std_stream(a) || is_std_stream(b)) return false;
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  return resolved_output_path(a) == resolved_output_path(b);
}

FILE* text_stream(const NamedOutputs& outputs) {
  for (const auto& output : outputs)
    if (is_std_stream(output.second)) return stderr;
  return stdout;
}

TextOutput::TextOutput(const std::filesystem::path& path)
    : name_(is_std_stream(path) ? "<stdout>" : path.string()), stdout_(is_std_stream(path)) {
  if (stdout_) {
    std::fflush(stdout);  // what printf wrote before comes first
    return;
  }
  replacing_.emplace(path);
  errno = 0;
  file_.open(replacing_->path(), std::ios::binary | std::ios::trunc);
  if (!file_) throw_errno(name_ + ": cannot write", errno != 0 ? errno : EIO);  // a missing directory: bad input
}

std::ostream& TextOutput::stream() { return stdout_ ? std::cout : file_; }

void TextOutput::close() {
  std::ostream& out = stream();
  out.flush();
  if (out && !stdout_) file_.close();
  if (!out) throw_errno(name_ + ": cannot write", errno != 0 ? errno : EIO);
  if (replacing_) replacing_->commit();
}

}  // namespace nqc
