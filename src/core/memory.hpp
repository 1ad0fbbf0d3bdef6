// Memory for arrays of n entries at large n: transparent huge pages, so that random access
// does not miss the TLB at every probe.
#pragma once

#include <cstddef>

namespace nqc {

/// Advises the kernel to back the 2 MiB-aligned part of [data, data + bytes) with transparent
/// huge pages (Linux, THP in "madvise" mode, the default; elsewhere nothing). Call before the
/// memory is first touched: n = 10^9 then takes 2 thousand page faults instead of a million,
/// and random probes of it miss the TLB far less often. Advice only: never fails.
void advise_huge_pages(void* data, std::size_t bytes);

/// Allocator for large arrays of random access (the line sets): from 2 MiB on, memory aligned
/// to 2 MiB and advised for transparent huge pages, so that random probes of a set of 10^9
/// lines do not each miss the TLB (Linux with THP in "madvise" mode, the default; elsewhere a
/// no-op). Below 2 MiB plain operator new.
template <class T>
struct LargeArrayAllocator {
  using value_type = T;
  LargeArrayAllocator() = default;
  template <class U>
  explicit LargeArrayAllocator(const LargeArrayAllocator<U>&) {}
  T* allocate(std::size_t count);
  void deallocate(T* p, std::size_t count);
  template <class U>
  bool operator==(const LargeArrayAllocator<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const LargeArrayAllocator<U>&) const {
    return false;
  }
};

/// The allocation behind LargeArrayAllocator (lines.cpp).
void* allocate_large_array(std::size_t bytes);
void free_large_array(void* p, std::size_t bytes);

template <class T>
T* LargeArrayAllocator<T>::allocate(std::size_t count) {
  return static_cast<T*>(allocate_large_array(count * sizeof(T)));
}
template <class T>
void LargeArrayAllocator<T>::deallocate(T* p, std::size_t count) {
  free_large_array(p, count * sizeof(T));
}

}  // namespace nqc
