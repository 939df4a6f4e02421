// The tests' mock cuda::mr resources, one set for every test (they were copied, and had drifted,
// in memory/resource_host_test.cpp, memory/resource_test.cu, exec_policy_test.cu, test/cccl35/ and four
// compile-fail tests). Each is spelled as the CCCL it is compiled with spells a resource
// (umsync/memory/resource.hpp's table), and in no other spelling, as umsync's own pools are.
//
//   null_arena          stream-ordered, device accessible, allocates nothing (no CUDA call):
//                       for code that must compile, or that a compile-fail test refuses.
//   synchronous_only    device accessible, synchronous pair only: not stream-ordered.
//   host_only           stream-ordered, host accessible only: not a source of device memory.
//   counting_resource   a conforming stream-ordered resource of device memory (cudaMallocAsync):
//                       refuses a bad alignment with umsync::invalid_argument before any CUDA
//                       call, allocates nothing for zero bytes, records every call and its stream,
//                       and runs out on request (throws std::bad_alloc, or returns null).
//
// Only detail/resource_properties.hpp and <cuda/stream_ref> are included, so that a test may
// leave out umsync/memory/resource.hpp (memory/compile_fail/resource_header_missing.cu). Outside an
// anonymous namespace: nvcc warns about an internal get_property that is never called (the
// concepts only ask whether it could be).
#pragma once

#include <umsync/detail/resource_properties.hpp>
#include <umsync/error.hpp>

#include <cuda/stream_ref>

#include <cstddef>
#include <new>
#include <string>
#include <vector>

// Declares a mock's four cuda::mr members in this CCCL's spelling, each forwarding to the
// mock's own stream_allocate / stream_free / sync_allocate / sync_free.
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
#  define UMSYNC_TEST_STREAM_ORDERED_MEMBERS                                                        \
    void* allocate(cuda::stream_ref s, std::size_t bytes, std::size_t alignment)                    \
    {                                                                                               \
      return stream_allocate(s, bytes, alignment);                                                  \
    }                                                                                               \
    void deallocate(cuda::stream_ref s, void* p, std::size_t bytes, std::size_t alignment) noexcept \
    {                                                                                               \
      stream_free(s, p, bytes, alignment);                                                          \
    }
#  define UMSYNC_TEST_SYNCHRONOUS_MEMBERS                                                                     \
    void* allocate_sync(std::size_t bytes, std::size_t alignment) { return sync_allocate(bytes, alignment); } \
    void deallocate_sync(void* p, std::size_t bytes, std::size_t alignment) noexcept { sync_free(p, bytes, alignment); }
#else
#  define UMSYNC_TEST_STREAM_ORDERED_MEMBERS                                                              \
    void* allocate_async(std::size_t bytes, std::size_t alignment, cuda::stream_ref s)                    \
    {                                                                                                     \
      return stream_allocate(s, bytes, alignment);                                                        \
    }                                                                                                     \
    void deallocate_async(void* p, std::size_t bytes, std::size_t alignment, cuda::stream_ref s) noexcept \
    {                                                                                                     \
      stream_free(s, p, bytes, alignment);                                                                \
    }
#  define UMSYNC_TEST_SYNCHRONOUS_MEMBERS                                                                \
    void* allocate(std::size_t bytes, std::size_t alignment) { return sync_allocate(bytes, alignment); } \
    void deallocate(void* p, std::size_t bytes, std::size_t alignment) noexcept { sync_free(p, bytes, alignment); }
#endif

namespace umsync_test {

/// Stream-ordered, device accessible, and allocates nothing: every allocation is null.
struct null_arena {
  UMSYNC_TEST_STREAM_ORDERED_MEMBERS
  UMSYNC_TEST_SYNCHRONOUS_MEMBERS
  bool operator==(null_arena const&) const noexcept { return true; }
  friend void get_property(null_arena const&, cuda::mr::device_accessible) noexcept {}

 private:
  static void* stream_allocate(cuda::stream_ref, std::size_t, std::size_t) noexcept { return nullptr; }
  static void stream_free(cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  static void* sync_allocate(std::size_t, std::size_t) noexcept { return nullptr; }
  static void sync_free(void*, std::size_t, std::size_t) noexcept {}
};

/// Device accessible, synchronous allocation only: not stream-ordered.
struct synchronous_only {
  UMSYNC_TEST_SYNCHRONOUS_MEMBERS
  bool operator==(synchronous_only const&) const noexcept { return true; }
  friend void get_property(synchronous_only const&, cuda::mr::device_accessible) noexcept {}

 private:
  static void* sync_allocate(std::size_t, std::size_t) noexcept { return nullptr; }
  static void sync_free(void*, std::size_t, std::size_t) noexcept {}
};

/// Stream-ordered, but its memory is host memory only.
struct host_only {
  UMSYNC_TEST_STREAM_ORDERED_MEMBERS
  UMSYNC_TEST_SYNCHRONOUS_MEMBERS
  bool operator==(host_only const&) const noexcept { return true; }
  friend void get_property(host_only const&, cuda::mr::host_accessible) noexcept {}

 private:
  static void* stream_allocate(cuda::stream_ref, std::size_t, std::size_t) noexcept { return nullptr; }
  static void stream_free(cuda::stream_ref, void*, std::size_t, std::size_t) noexcept {}
  static void* sync_allocate(std::size_t, std::size_t) noexcept { return nullptr; }
  static void sync_free(void*, std::size_t, std::size_t) noexcept {}
};

/// A conforming stream-ordered resource of device memory that records its calls. Two compare
/// equal when they are the same object (one may free only its own memory).
class counting_resource {
 public:
  enum class failure { none, throws, returns_null };

  struct call {
    void* memory;
    std::size_t bytes;
    std::size_t alignment;
    cudaStream_t stream;
  };

  UMSYNC_TEST_STREAM_ORDERED_MEMBERS
  UMSYNC_TEST_SYNCHRONOUS_MEMBERS

  friend bool operator==(counting_resource const& a, counting_resource const& b) noexcept { return &a == &b; }
  friend void get_property(counting_resource const&, cuda::mr::device_accessible) noexcept {}

  /// Bytes allocated and not yet freed (stream-ordered and synchronous).
  [[nodiscard]] std::size_t live_bytes() const noexcept { return live_bytes_; }

  failure fail = failure::none;
  std::vector<call> allocations;  ///< stream-ordered allocations, in order
  std::vector<call> frees;        ///< stream-ordered frees, in order
  std::size_t synchronous_calls = 0;

 private:
  void* stream_allocate(cuda::stream_ref stream, std::size_t bytes, std::size_t alignment)
  {
    void* const memory = take(stream.get(), bytes, alignment);
    if (memory != nullptr) {
      allocations.push_back({memory, bytes, alignment, stream.get()});
    }
    return memory;
  }
  void stream_free(cuda::stream_ref stream, void* memory, std::size_t bytes, std::size_t alignment) noexcept
  {
    if (memory != nullptr) {
      frees.push_back({memory, bytes, alignment, stream.get()});
    }
    give(stream.get(), memory, bytes);
  }
  void* sync_allocate(std::size_t bytes, std::size_t alignment)
  {
    ++synchronous_calls;
    void* const memory = take(cudaStreamPerThread, bytes, alignment);
    if (memory != nullptr && cudaStreamSynchronize(cudaStreamPerThread) != cudaSuccess) {
      give(cudaStreamPerThread, memory, bytes);
      throw std::bad_alloc();
    }
    return memory;
  }
  void sync_free(void* memory, std::size_t bytes, std::size_t) noexcept
  {
    ++synchronous_calls;
    give(cudaStreamPerThread, memory, bytes);
    static_cast<void>(cudaStreamSynchronize(cudaStreamPerThread));
  }

  void* take(cudaStream_t stream, std::size_t bytes, std::size_t alignment)
  {
    if (!umsync::detail::pool_alignment_ok(alignment)) {
      throw umsync::invalid_argument("counting_resource: alignment " + std::to_string(alignment) +
                                     " is not a power of two of at most 256");
    }
    if (bytes == 0) {
      return nullptr;
    }
    if (fail == failure::throws) {
      throw std::bad_alloc();
    }
    void* memory = nullptr;
    if (fail == failure::returns_null || cudaMallocAsync(&memory, bytes, stream) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      return nullptr;
    }
    live_bytes_ += bytes;
    return memory;
  }
  void give(cudaStream_t stream, void* memory, std::size_t bytes) noexcept
  {
    if (memory != nullptr) {
      static_cast<void>(cudaFreeAsync(memory, stream));
      live_bytes_ -= bytes;
    }
  }

  std::size_t live_bytes_ = 0;
};

}  // namespace umsync_test

#undef UMSYNC_TEST_STREAM_ORDERED_MEMBERS
#undef UMSYNC_TEST_SYNCHRONOUS_MEMBERS
