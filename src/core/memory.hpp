// Memory for arrays of n entries at large n: transparent huge pages, so that random access
// does not miss the TLB at every probe.
#pragma once

#include <cstddef>

namespace nqc {

/// Advises the kernel to back the 2 MiB-aligned part of [data, data + bytes) with transparent
/// huge pages, before first touch (n = 10^9: far fewer page faults and TLB misses). Never fails.
void advise_huge_pages(void* data, std::size_t bytes);

/// Allocator for large arrays of random access (the line sets): from 2 MiB on, 2 MiB-aligned and
/// advised for huge pages; below, plain operator new.
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
