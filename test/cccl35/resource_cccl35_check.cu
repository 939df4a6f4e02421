// Compile-only check of umsync/memory/resource.hpp and memory_pool.hpp against CCCL 3.1 and later
// (RMM 26.x ships CCCL 3.5): built with that CCCL first on the include path, e.g.
//   nvcc -std=c++20 -arch=sm_90 -isystem <librmm>/include/rapids -I include -c resource_cccl35_check.cu
// umsync's pools model CCCL 3.5's resource concepts (allocate(stream, bytes, alignment), the
// synchronous allocate_sync) with device_accessible; device_resource_ref is cuda::mr::resource_ref;
// and a buffer takes its memory from a CCCL 3.5 resource, a user's or a reference.
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include "../support/mock_resources.hpp"

#include <cuda/memory_resource>

#include <cstddef>
#include <type_traits>

#if CCCL_MAJOR_VERSION < 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION < 1)
#  error "this check is for CCCL 3.1 or later: put that CCCL first on the include path"
#endif
static_assert(UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE == 1);

// umsync's pools have CCCL 3.5's spelling and no other (memory_pool.hpp).
static_assert(umsync::detail::one_spelling_per_operation<umsync::memory_pool>);
static_assert(umsync::detail::one_spelling_per_operation<umsync::memory_pool_ref>);
static_assert(cuda::mr::resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<umsync::memory_pool, cuda::mr::device_accessible>);
static_assert(cuda::mr::synchronous_resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
static_assert(!cuda::mr::resource_with<umsync::memory_pool, cuda::mr::host_accessible>);
static_assert(umsync::stream_ordered_resource<umsync::memory_pool>);
static_assert(umsync::stream_ordered_resource<umsync::memory_pool_ref>);
static_assert(std::is_same_v<umsync::device_resource_ref, cuda::mr::resource_ref<cuda::mr::device_accessible>>);
// CCCL 3.5's resource_ref refers to copyable resources: a memory_pool_ref, not the move-only pool.
static_assert(std::is_constructible_v<umsync::device_resource_ref, umsync::memory_pool_ref&>);

namespace cccl35_check {

struct compute {};

/// A user's resource, in CCCL 3.5's spelling only here (the tests' shared mock).
using arena = umsync_test::null_arena;
static_assert(umsync::stream_ordered_resource<arena>);
static_assert(cuda::mr::resource_with<arena, cuda::mr::device_accessible>);

/// Move-only: CCCL 3.5's resource_ref cannot refer to it, but a buffer can borrow it.
struct move_only_arena : arena {
  move_only_arena() = default;
  move_only_arena(move_only_arena&&) = default;
  move_only_arena& operator=(move_only_arena&&) = default;
  bool operator==(move_only_arena const&) const noexcept { return true; }
  friend void get_property(move_only_arena const&, cuda::mr::device_accessible) noexcept {}
};
static_assert(umsync::stream_ordered_resource<move_only_arena>);

void use(umsync::stream<compute> const& s, umsync::memory_pool& pool, arena& a, move_only_arena& m)
{
  umsync::memory_pool_ref handle = pool;
  umsync::device_resource_ref ref = handle;
  void* memory = umsync::detail::allocate_from(ref, s, 256, 256);
  umsync::detail::deallocate_to(ref, s, memory, 256, 256);
  umsync::stream_buffer<float, compute> from_pool(16, s, pool);
  umsync::stream_buffer<float, compute> from_ref(16, s, ref);
  umsync::stream_buffer<float, compute> from_temporary_ref(16, s, umsync::device_resource_ref(a));
  umsync::stream_buffer<float, compute> from_arena(16, s, a);
  umsync::stream_buffer<float, compute> from_move_only(16, s, m);
}

}  // namespace cccl35_check
