// Host tests of umsync/memory/resource.hpp and the cuda::mr members of memory_pool.hpp: what is
// not a stream-ordered resource, the one spelling of each pool member under the CCCL this build
// uses (test/cccl35/ checks CCCL 3.5's), a type-erased device_resource_ref to a pool keeps its
// checks. The conformance of every resource is memory/resource_conformance_host_test.cpp's.
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include "support/mock_resources.hpp"

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

// The pools' conformance (concepts, properties, alignment, zero bytes, equality) is the shared
// suite's: memory/resource_conformance_host_test.cpp. Here: what is refused, and the reference type.
static_assert(umsync::stream_ordered_resource<umsync::device_resource_ref>);
// A handle converts to the type-erased reference (an lvalue: the reference points at it).
static_assert(std::is_constructible_v<umsync::device_resource_ref, umsync::memory_pool_ref&>);

// The shared mocks (support/mock_resources.hpp): synchronous allocation only is not
// stream-ordered; stream-ordered host memory is not a source of device memory.
static_assert(!umsync::stream_ordered_resource<umsync_test::synchronous_only>);
static_assert(umsync::detail::allocates_on_streams<umsync_test::host_only>);
static_assert(!umsync::stream_ordered_resource<umsync_test::host_only>);
static_assert(umsync::stream_ordered_resource<umsync_test::null_arena>);

// No member of umsync's pools is stream-ordered or synchronous by the order of its arguments:
// the other CCCL's spelling does not exist (memory_pool.hpp).
template <class R>
concept has_cccl30_synchronous_allocate = requires(R const& r)
{
  r.allocate(std::size_t{64}, std::size_t{256});
};
template <class R>
concept has_cccl31_stream_allocate = requires(R const& r, cuda::stream_ref s)
{
  r.allocate(s, std::size_t{64}, std::size_t{256});
};
template <class R>
concept has_cccl30_async_allocate = requires(R const& r, cuda::stream_ref s)
{
  r.allocate_async(std::size_t{64}, std::size_t{256}, s);
};
template <class R>
concept has_cccl31_allocate_sync = requires(R const& r)
{
  r.allocate_sync(std::size_t{64}, std::size_t{256});
};
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
static_assert(has_cccl31_stream_allocate<umsync::memory_pool> && has_cccl31_allocate_sync<umsync::memory_pool>);
static_assert(!has_cccl30_synchronous_allocate<umsync::memory_pool> && !has_cccl30_async_allocate<umsync::memory_pool>);
static_assert(!has_cccl30_synchronous_allocate<umsync::memory_pool_ref> &&
              !has_cccl30_async_allocate<umsync::memory_pool_ref>);
#else
static_assert(has_cccl30_async_allocate<umsync::memory_pool> && has_cccl30_synchronous_allocate<umsync::memory_pool>);
static_assert(!has_cccl31_stream_allocate<umsync::memory_pool> && !has_cccl31_allocate_sync<umsync::memory_pool>);
static_assert(!has_cccl31_stream_allocate<umsync::memory_pool_ref> &&
              !has_cccl31_allocate_sync<umsync::memory_pool_ref>);
#endif

// Rvalue CCCL references count as references (a buffer copies them), a resource does not.
static_assert(umsync::detail::is_resource_ref<umsync::device_resource_ref>);
static_assert(!umsync::detail::is_resource_ref<umsync::memory_pool_ref>);

// A pool handle that was never created: every check below must fire before CUDA is called.
umsync::memory_pool_ref const no_pool{nullptr};
cuda::stream_ref const per_thread{cudaStreamPerThread};

}  // namespace

TEST_CASE("through a device_resource_ref, the pool's own checks and names still apply")
{
  umsync::memory_pool_ref handle = no_pool;
  umsync::device_resource_ref ref = handle;
  CHECK(umsync::detail::allocate_from(ref, per_thread, 0, 256) == nullptr);
  CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(ref, per_thread, 64, 512)), umsync::invalid_argument);
  umsync::detail::deallocate_to(ref, per_thread, nullptr, 0, 256);
  // Directly on the type as well.
  CHECK_THROWS_AS(static_cast<void>(umsync::detail::allocate_from(handle, per_thread, 64, 3)),
                  umsync::invalid_argument);
}

TEST_CASE("resources compare as their pools")
{
  umsync::memory_pool_ref const a{nullptr};
  umsync::memory_pool_ref const b{reinterpret_cast<cudaMemPool_t>(std::uintptr_t{0x1000})};
  CHECK(a == no_pool);
  CHECK_FALSE(a == b);
  umsync::memory_pool const empty = umsync::memory_pool::adopt_imported(nullptr);  // owns nothing: no CUDA call
  CHECK(empty == empty);
}

TEST_CASE("a resource's type name reads as written, for bad_alloc messages")
{
  CHECK(umsync::detail::pretty_type_name_v<umsync_test::synchronous_only>.find("synchronous_only") !=
        umsync::detail::text_view::npos);
  CHECK(umsync::detail::pretty_type_name_v<umsync::memory_pool>.find("memory_pool") != umsync::detail::text_view::npos);
  // Nothing after the name (g++ lists the signature's typedefs after it when there are any).
  CHECK(umsync::detail::pretty_type_name_v<umsync_test::synchronous_only>.ends_with("synchronous_only"));
  CHECK(umsync::detail::pretty_type_name_v<umsync::memory_pool>.ends_with("memory_pool"));
}
