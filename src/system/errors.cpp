#include "system/errors.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <ios>
#include <new>
#include <system_error>

namespace nqc {

std::string_view exit_code_name(int code) {
  for (const ExitCodeInfo& info : kExitCodes)
    if (info.code == code) return info.name;
  return "unknown";
}

std::string exit_codes_text() {
  std::size_t width = 0;
  for (const ExitCodeInfo& info : kExitCodes) width = std::max(width, info.name.size());
  std::string out = "Exit codes:\n";
  for (const ExitCodeInfo& info : kExitCodes) {
    out += "  " + std::to_string(info.code) + " " + std::string(info.name);
    out += std::string(width + 2 - info.name.size(), ' ') + std::string(info.meaning) + "\n";
  }
  return out;
}

std::string exit_codes_footer(std::initializer_list<std::pair<ExitCode, std::string_view>> own) {
  std::string out;
  for (const auto& [code, what] : own)
    out += (out.empty() ? "" : ", ") + std::to_string(code) + " " + std::string(what);
  out = "Exit codes: " + out + "; every subcommand:";
  for (const ExitCode code : {kExitBadInput, kExitIoError, kExitOutOfMemory})
    out += (code == kExitBadInput ? " " : ", ") + std::to_string(code) + " " + std::string(exit_code_name(code));
  return out + " (nqc --help).";
}

ExitCode errno_exit_code(int error) {
  switch (error) {
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
    case EEXIST: return kExitBadInput;
    case ENOMEM:
    case EAGAIN: return kExitOutOfMemory;  // EAGAIN: a thread or process could not start (memory, limits)
    default: return kExitIoError;
  }
}

void throw_error(ExitCode code, const std::string& what) {
  switch (code) {
    case kExitBadInput: throw InputError(what);
    case kExitIoError: throw IoError(what);
    case kExitOutOfMemory: throw OutOfMemoryError(what);
    default: throw Error(code, what);
  }
}

void throw_errno(const std::string& what, int error) {
  throw_error(errno_exit_code(error), what + ": " + std::strerror(error));
}

ErrorReport current_error() {
  try {
    throw;
  } catch (const Error& e) {
    return {e.code(), e.what()};
  } catch (const std::bad_alloc&) {
    return {kExitOutOfMemory, "out of memory (the board or the file is too large for this machine)"};
  } catch (const std::filesystem::filesystem_error& e) {
    // "PATH: REASON" as every other message, not libstdc++'s "filesystem error: status: ...".
    const std::string path = e.path1().empty() ? std::string() : e.path1().string() + ": ";
    return {errno_exit_code(e.code().value()), path + e.code().message()};
  } catch (const std::ios_base::failure& e) {
    // A stream's exception names no file: a read or write the system refused.
    return {kExitIoError, std::string("a read or write failed (") + e.what() + ")"};
  } catch (const std::system_error& e) {
    const bool system = e.code().category() == std::system_category() || e.code().category() == std::generic_category();
    return {system ? errno_exit_code(e.code().value()) : kExitBadInput, e.what()};
  } catch (const std::exception& e) {
    return {kExitBadInput, e.what()};
  } catch (...) {
    return {kExitBadInput, "unknown error"};
  }
}

}  // namespace nqc
