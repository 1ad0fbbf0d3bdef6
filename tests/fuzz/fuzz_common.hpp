// What every fuzz target of tests/fuzz shares: the input as a file (the readers take paths,
// as the nqc commands do), and the oracle for an error. A reader may refuse an input only
// with the exception its contract names, whose message is one line that names the file
// (docs/formats.md); anything else (another exception, a message
// over two lines, a sanitizer report, a crash, a hang, a leak) is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace nqc::fuzz {

/// This process's directory for its inputs: $TMPDIR (default /dev/shm, memory)/nqc-fuzz-PID.
/// run.sh and replay.sh point TMPDIR at a directory of their own and remove it (libFuzzer
/// ends the process without running atexit functions).
inline const std::filesystem::path& work_dir() {
  static const std::filesystem::path dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::filesystem::path d =
        std::filesystem::path(tmp != nullptr ? tmp : "/dev/shm") / ("nqc-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

/// A file of this process (work_dir) named `name` (the readers tell formats by content, some
/// kinds by name), holding exactly `size` bytes of `data`.
inline std::filesystem::path as_file(const std::uint8_t* data, std::size_t size, const std::string& name) {
  const std::filesystem::path& dir = work_dir();
  const std::filesystem::path file = dir / name;
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) {
    std::fprintf(stderr, "fuzz: cannot write %s\n", file.c_str());
    std::abort();
  }
  return file;
}

/// Aborts (a finding) unless `message` is one non-empty line that starts with `prefix` (the
/// file's name, as every reader names it first).
inline void require_one_line(std::string_view message, std::string_view prefix, const char* what) {
  if (message.empty() || message.find('\n') != std::string_view::npos || !message.starts_with(prefix)) {
    std::fprintf(stderr, "fuzz: %s message is not one line naming %.*s: '%.*s'\n", what,
                 static_cast<int>(prefix.size()), prefix.data(), static_cast<int>(message.size()), message.data());
    std::abort();
  }
}

}  // namespace nqc::fuzz
