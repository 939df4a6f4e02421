// Compile-time properties of umsync/stream_view.hpp (host only), and what a view does without a
// device: it is a copyable, non-owning handle with its tag in its type, made from a raw handle
// only explicitly.
#include <cuda/stream_ref>
#include <doctest/doctest.h>
#include <umsync/event.hpp>
#include <umsync/stream_view.hpp>

#include <cstdint>
#include <type_traits>

namespace {
struct compute {};
struct copy {};
}  // namespace

// Tags do not mix: a view of one tag is not a view of another.
static_assert(!std::is_convertible_v<umsync::stream_view<compute>, umsync::stream_view<copy>>);
static_assert(std::is_same_v<umsync::stream_view<compute>::tag_type, compute>);
static_assert(std::is_same_v<umsync::stream_view<>::tag_type, umsync::untagged>);
// Views adopt raw handles only explicitly.
static_assert(!std::is_convertible_v<cudaStream_t, umsync::stream_view<compute>>);
static_assert(std::is_convertible_v<umsync::stream_view<compute>, cudaStream_t>);
static_assert(std::is_convertible_v<umsync::stream_view<compute>, cuda::stream_ref>);
// Non-owning: copied freely, as cheaply as the handle; adopting never throws in release builds.
static_assert(std::is_trivially_copyable_v<umsync::stream_view<compute>>);
static_assert(sizeof(umsync::stream_view<compute>) == sizeof(cudaStream_t));
static_assert(std::is_nothrow_constructible_v<umsync::stream_view<compute>, cudaStream_t> == !umsync::debug_build);

static_assert(umsync::stream_handle<umsync::stream_view<copy>>);
static_assert(!umsync::stream_handle<cudaStream_t>);
static_assert(umsync::event_handle<umsync::event>);
static_assert(!umsync::event_handle<cudaEvent_t>);
static_assert(!umsync::event_handle<umsync::stream_view<compute>>);

TEST_CASE("named default streams carry the runtime's special handles")
{
  CHECK(umsync::legacy_default_stream().get() == cudaStreamLegacy);
  CHECK(umsync::per_thread_default_stream<compute>().get() == cudaStreamPerThread);
  CHECK(umsync::legacy_default_stream() != umsync::per_thread_default_stream());
}

TEST_CASE("views are equal when they name the same handle, and get() is that handle")
{
  auto const first = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x1000});  // never given to CUDA
  auto const second = reinterpret_cast<cudaStream_t>(std::uintptr_t{0x2000});
  umsync::stream_view<compute> const a{first};
  umsync::stream_view<compute> const a_again{first};
  umsync::stream_view<compute> const b{second};
  CHECK(a == a_again);
  CHECK(a != b);
  CHECK(a.get() == first);
  cudaStream_t const raw = b;
  CHECK(raw == second);
  umsync::stream_view<compute> copied = a;
  copied = b;
  CHECK(copied == b);
  CHECK(a.get() == first);  // a copy is a second view, not a second owner
}
