// A FIFO fed by a thread, for tests of the readers of streams (InputFile::is_stream): a given
// start, then a pattern repeated up to a total (an endless stream such as /dev/zero or `yes`,
// cut far above what a reader may take). The pipe is made as small as the system allows, so
// that what the writer got rid of tells how far the reader read: at most pipe_bytes() more.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>

namespace nqc::testing {

class FifoWriter {
 public:
  /// Makes the FIFO `path` and starts writing `start`, then `pattern` repeated until `total`
  /// bytes in all (none when `pattern` is empty), in writes of 4 KiB; the writer stops when
  /// the reader closes the FIFO (SIGPIPE is ignored: the write fails with EPIPE).
  FifoWriter(std::filesystem::path path, std::string start, std::string pattern = "", std::uint64_t total = 0)
      : path_(std::move(path)) {
    std::signal(SIGPIPE, SIG_IGN);
    ::mkfifo(path_.c_str(), 0600);
    thread_ = std::thread([this, start = std::move(start), pattern = std::move(pattern), total] {
      const int fd = ::open(path_.c_str(), O_WRONLY);  // waits for the reader
      if (fd < 0) return;
      const int size = ::fcntl(fd, F_SETPIPE_SZ, 4096);
      pipe_bytes_ = size > 0 ? static_cast<std::uint64_t>(size) : 65536;
      const std::uint64_t end = pattern.empty() ? start.size() : std::max<std::uint64_t>(total, start.size());
      std::string block;
      for (std::uint64_t at = 0; at < end;) {
        block.clear();
        for (std::uint64_t i = at; i < end && block.size() < 4096;) {
          if (i < start.size()) {
            const std::size_t take =
                static_cast<std::size_t>(std::min<std::uint64_t>(start.size() - i, 4096 - block.size()));
            block.append(start, static_cast<std::size_t>(i), take);
            i += take;
          } else {
            const std::size_t from = static_cast<std::size_t>((i - start.size()) % pattern.size());
            const std::size_t take = static_cast<std::size_t>(
                std::min<std::uint64_t>({pattern.size() - from, 4096 - block.size(), end - i}));
            block.append(pattern, from, take);
            i += take;
          }
        }
        const ssize_t put = ::write(fd, block.data(), block.size());
        if (put <= 0) break;
        at += static_cast<std::uint64_t>(put);
        written_ = at;
      }
      ::close(fd);
    });
  }
  FifoWriter(const FifoWriter&) = delete;
  FifoWriter& operator=(const FifoWriter&) = delete;
  ~FifoWriter() {
    finish();
    std::filesystem::remove(path_);
  }

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

  /// Waits for the writer: the bytes it wrote. (A FIFO no reader opened is opened and closed
  /// here, which ends the writer.)
  std::uint64_t finish() {
    if (thread_.joinable()) {
      if (pipe_bytes_ == 0) {
        const int fd = ::open(path_.c_str(), O_RDONLY);  // meets the writer's open, if not yet met
        if (fd >= 0) ::close(fd);
      }
      thread_.join();
    }
    return written_;
  }
  /// The pipe's capacity: bytes the writer got rid of that no reader took, at most.
  [[nodiscard]] std::uint64_t pipe_bytes() const { return pipe_bytes_; }

 private:
  std::filesystem::path path_;
  std::thread thread_;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> pipe_bytes_{0};  // set once the writer has met a reader
};

}  // namespace nqc::testing
