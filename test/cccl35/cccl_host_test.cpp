// Host tests of umsync/cccl.hpp (CCCL 3.5's owning types with umsync), compiled by the host
// compiler with CCCL 3.5 first: what holds without a device. gpu/cccl_test.cu runs them on one.
#include <doctest/doctest.h>
#include <umsync/cccl.hpp>
#include <umsync/memory/memory_range.hpp>

#include <cuda/std/span>

#include <cstdint>
#include <type_traits>
#include <utility>

namespace {
struct compute {};
struct copy {};

using device_view = umsync::stream_view<compute>;
using device_buffer = cuda::device_buffer<float>;
using managed_buffer = cuda::buffer<float, cuda::mr::device_accessible, cuda::mr::host_accessible>;

// A device-only buffer answers a device span bound to the stream's tag; const stays const.
static_assert(
    std::is_same_v<decltype(umsync::buffer_memory(std::declval<device_buffer&>(), std::declval<device_view>())),
                   umsync::device_span<float, compute>>);
static_assert(
    std::is_same_v<decltype(umsync::buffer_memory(std::declval<device_buffer const&>(), std::declval<device_view>())),
                   umsync::device_span<float const, compute>>);
// A host-accessible buffer gets the kind its caller names.
static_assert(std::is_same_v<decltype(umsync::buffer_memory<umsync::memory_kind::managed>(
                                 std::declval<managed_buffer&>(), std::declval<device_view>())),
                             umsync::memory_span<float, umsync::memory_kind::managed, compute>>);
// The span is umsync memory: launch, the copies and the checker take it, on its tag only.
static_assert(umsync::memory_range<umsync::device_span<float, compute>>);
static_assert(umsync::usable_on_stream<compute, compute> && !umsync::usable_on_stream<compute, copy>);

// A temporary buffer would free its memory before queued work reads it: refused.
template <class Buffer>
concept memory_of_temporary = requires(Buffer&& b)
{
  umsync::buffer_memory(std::move(b), std::declval<device_view>());
};
static_assert(!memory_of_temporary<device_buffer>);

// The pools each way: CCCL's device pool is a stream-ordered resource for stream_buffer, and
// umsync's pool reference a device-accessible cuda::mr resource for cuda::buffer.
static_assert(umsync::stream_ordered_resource<cuda::device_memory_pool>);
static_assert(umsync::stream_ordered_resource<cuda::device_memory_pool_ref>);
static_assert(cuda::mr::resource_with<umsync::memory_pool_ref, cuda::mr::device_accessible>);
static_assert(std::is_constructible_v<cuda::mr::any_resource<cuda::mr::device_accessible>, umsync::memory_pool_ref>);

// cuda::launch's hook turns an untagged span into the kernel's cuda::std::span.
static_assert(std::is_same_v<decltype(transform_launch_argument(cuda::stream_ref{cudaStream_t{}},
                                                                umsync::device_span<std::uint32_t>{})),
                             cuda::std::span<std::uint32_t>>);
static_assert(std::is_same_v<decltype(transform_launch_argument(cuda::stream_ref{cudaStream_t{}},
                                                                umsync::device_span<std::uint32_t const>{})),
                             cuda::std::span<std::uint32_t const>>);
}  // namespace

TEST_CASE("adopt_stream: a cuda::stream_ref becomes a tagged view of the same handle")
{
  // A handle value only: nothing is queued, so no stream need exist.
  alignas(16) static char fake_stream_object[16];
  auto const handle = reinterpret_cast<cudaStream_t>(&fake_stream_object);
  umsync::stream_view<compute> const view = umsync::adopt_stream<compute>(cuda::stream_ref{handle});
  CHECK(view.get() == handle);
  // And back: the view converts to the stream_ref CCCL's calls take.
  cuda::stream_ref const back = view;
  CHECK(back.get() == handle);
}

TEST_CASE("transform_launch_argument passes an untagged span's address and size unchanged")
{
  static std::uint32_t words[37] = {};
  auto const span = umsync::device_span<std::uint32_t>::adopt(words, 37);
  auto const passed = transform_launch_argument(cuda::stream_ref{cudaStream_t{}}, span);
  CHECK(passed.data() == words);
  CHECK(passed.size() == 37);
}
