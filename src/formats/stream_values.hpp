// The values of a composition read from a stream, whose count is not known (text) or not yet
// proved by the bytes (a binary header's n): written into one chunk, kept in chunks mapped
// from the system, so that growing never copies nor holds two arrays at once, then moved into
// one vector.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstring>
#include <new>
#include <vector>

#include "core/composition.hpp"
#include "core/memory.hpp"

namespace nqc {

/// Values appended in order: written into a chunk of kChunk (4 MiB), which is copied into
/// memory of its own (mmap: given back to the system when freed, whatever the allocator's
/// thresholds) when it has no room left. Not copyable.
class StreamValues {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << 20;

  StreamValues() = default;
  StreamValues(const StreamValues&) = delete;
  StreamValues& operator=(const StreamValues&) = delete;
  ~StreamValues() {
    for (const Chunk& c : full_) ::munmap(c.data, kChunk * sizeof(Index));
  }

  /// The chunk to write the next `count` (<= kChunk) values to, from index used() on (its size
  /// is kChunk; the full part is set aside first when fewer places are left).
  std::vector<Index>& room(std::size_t count) {
    if (current_.empty()) current_.assign(kChunk, 0);
    if (used_ + count > kChunk) set_aside();
    return current_;
  }
  /// The values of the current chunk that are set (advance it after writing).
  std::size_t& used() { return used_; }
  /// Appends one value.
  void push(Index v) { room(1)[used_++] = v; }
  /// How many values there are.
  [[nodiscard]] std::size_t size() const { return before_ + used_; }

  /// All values, in order, in one vector (allocated once, advised for huge pages); each chunk
  /// is given back as it is copied, so memory peaks at about the values' own size and a chunk.
  std::vector<Index> take() {
    std::vector<Index> out;
    out.reserve(size());
    advise_huge_pages(out.data(), size() * sizeof(Index));
    for (const Chunk& c : full_) {
      out.insert(out.end(), c.data, c.data + c.used);
      ::munmap(c.data, kChunk * sizeof(Index));
    }
    full_.clear();
    out.insert(out.end(), current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(used_));
    std::vector<Index>().swap(current_);
    before_ = used_ = 0;
    return out;
  }

 private:
  struct Chunk {
    Index* data;       // mapped, kChunk values long
    std::size_t used;  // the values set
  };

  // Moves the values of the current chunk into a chunk of their own.
  void set_aside() {
    void* p = ::mmap(nullptr, kChunk * sizeof(Index), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    std::memcpy(p, current_.data(), used_ * sizeof(Index));
    full_.push_back({static_cast<Index*>(p), used_});
    before_ += used_;
    used_ = 0;
  }

  std::vector<Chunk> full_;
  std::vector<Index> current_;
  std::size_t used_ = 0;
  std::size_t before_ = 0;
};

}  // namespace nqc
