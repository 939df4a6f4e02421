// One conformance suite for stream-ordered resources, instantiated per resource (as RMM's
// cpp/tests/mr/mr_ref_*_tests.cpp instantiate its shared typed suites): each fixture below makes
// one resource, and memory/resource_conformance_host_test.cpp (what holds without a device: concepts,
// properties, equality, refused alignments, zero bytes) and memory/resource_conformance_test.cu (the
// allocate / use / free round trips on a stream) run the same cases over every fixture listed in
// UMSYNC_TEST_CONFORMING_RESOURCES. A new resource gets the whole suite by adding its fixture.
//
// A fixture made with `device == false` calls no CUDA function: a pool handle that was never
// created, an empty memory_pool. `allocates_without_device` says whether its allocations still
// reach the checks (alignment, zero bytes) that run before CUDA; `copies_compare_equal`, whether a
// copy is the same resource (a handle, a reference) or another one (a counting_resource's copy
// counts on its own; the pool is move-only).
#pragma once

#include "mock_resources.hpp"

#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>

#include <cuda/stream_ref>

#include <cstddef>
#include <optional>
#include <type_traits>

namespace umsync_test {

/// An owning memory_pool (an empty one without a device: it refuses to allocate, usage_error).
struct memory_pool_fixture {
  using resource_type = umsync::memory_pool;
  static constexpr bool allocates_without_device = false;
  static constexpr bool copies_compare_equal = false;
  explicit memory_pool_fixture(bool device)
      : pool(device ? umsync::memory_pool() : umsync::memory_pool::adopt_imported(nullptr))
  {}
  resource_type& resource() noexcept { return pool; }
  umsync::memory_pool pool;
};

/// A handle to an owned pool (without a device, a handle that was never created).
struct memory_pool_ref_fixture {
  using resource_type = umsync::memory_pool_ref;
  static constexpr bool allocates_without_device = true;
  static constexpr bool copies_compare_equal = true;
  explicit memory_pool_ref_fixture(bool device)
  {
    if (device) {
      handle = owned.emplace();
    }
  }
  resource_type& resource() noexcept { return handle; }
  std::optional<umsync::memory_pool> owned;
  umsync::memory_pool_ref handle{nullptr};
};

/// cuda::mr's type-erased reference (umsync::device_resource_ref) to a pool's handle.
struct device_resource_ref_fixture {
  using resource_type = umsync::device_resource_ref;
  static constexpr bool allocates_without_device = true;
  static constexpr bool copies_compare_equal = true;
  explicit device_resource_ref_fixture(bool device) : handle(device), ref(handle.resource()) {}
  resource_type& resource() noexcept { return ref; }
  memory_pool_ref_fixture handle;
  umsync::device_resource_ref ref;
};

/// The tests' own conforming resource (mock_resources.hpp).
struct counting_resource_fixture {
  using resource_type = counting_resource;
  static constexpr bool allocates_without_device = true;
  static constexpr bool copies_compare_equal = false;
  explicit counting_resource_fixture(bool) {}
  resource_type& resource() noexcept { return counting; }
  counting_resource counting;
};

#define UMSYNC_TEST_CONFORMING_RESOURCES                                                                            \
  umsync_test::memory_pool_fixture, umsync_test::memory_pool_ref_fixture, umsync_test::device_resource_ref_fixture, \
      umsync_test::counting_resource_fixture

/// The synchronous pair by this CCCL's name (3.0: allocate; 3.1 and later: allocate_sync).
template <class R>
[[nodiscard]] void* allocate_synchronously(R& resource, std::size_t bytes, std::size_t alignment)
{
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  return resource.allocate_sync(bytes, alignment);
#else
  return resource.allocate(bytes, alignment);
#endif
}
template <class R>
void deallocate_synchronously(R& resource, void* memory, std::size_t bytes, std::size_t alignment)
{
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  resource.deallocate_sync(memory, bytes, alignment);
#else
  resource.deallocate(memory, bytes, alignment);
#endif
}

/// The synchronous concept of this CCCL (3.0: resource; 3.1 and later: synchronous_resource).
template <class R>
concept synchronous_device_resource =
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
    cuda::mr::synchronous_resource_with<R, cuda::mr::device_accessible>;
#else
    cuda::mr::resource_with<R, cuda::mr::device_accessible>;
#endif

}  // namespace umsync_test
