// Compile-time properties of umsync/stream.hpp, stream_view.hpp and event.hpp (host only).
#include <doctest/doctest.h>
#include <umsync/event.hpp>
#include <umsync/stream.hpp>
#include <umsync/timed_event.hpp>

#include <type_traits>

namespace {
struct compute {};
struct copy {};
}  // namespace

// Owning types are move-only and moves never throw.
static_assert(!std::is_copy_constructible_v<umsync::stream<compute>>);
static_assert(!std::is_copy_assignable_v<umsync::stream<compute>>);
static_assert(std::is_nothrow_move_constructible_v<umsync::stream<compute>>);
static_assert(std::is_nothrow_move_assignable_v<umsync::stream<compute>>);
static_assert(!std::is_copy_constructible_v<umsync::event>);
static_assert(std::is_nothrow_move_constructible_v<umsync::event>);
static_assert(!std::is_copy_constructible_v<umsync::timed_event>);
static_assert(std::is_nothrow_move_constructible_v<umsync::timed_event>);

// Tags do not mix: a view of one tag is not a view of another.
static_assert(!std::is_convertible_v<umsync::stream_view<compute>, umsync::stream_view<copy>>);
static_assert(!std::is_convertible_v<umsync::stream<compute> const&, umsync::stream_view<copy>>);
static_assert(std::is_convertible_v<umsync::stream<compute> const&, umsync::stream_view<compute>>);
// A view of a temporary stream would dangle.
static_assert(!std::is_convertible_v<umsync::stream<compute>&&, umsync::stream_view<compute>>);
// Views adopt raw handles only explicitly.
static_assert(!std::is_convertible_v<cudaStream_t, umsync::stream_view<compute>>);
static_assert(std::is_convertible_v<umsync::stream_view<compute>, cudaStream_t>);
static_assert(std::is_convertible_v<umsync::stream_view<compute>, cuda::stream_ref>);

static_assert(umsync::stream_handle<umsync::stream<compute>>);
static_assert(umsync::stream_handle<umsync::stream_view<copy>>);
static_assert(!umsync::stream_handle<cudaStream_t>);
static_assert(umsync::event_handle<umsync::event>);
static_assert(umsync::event_handle<umsync::timed_event>);

TEST_CASE("named default streams carry the runtime's special handles")
{
  CHECK(umsync::legacy_default_stream().get() == cudaStreamLegacy);
  CHECK(umsync::per_thread_default_stream<compute>().get() == cudaStreamPerThread);
  CHECK(umsync::legacy_default_stream() != umsync::per_thread_default_stream());
}

TEST_CASE("stream priority ranges contain their ends only")
{
  umsync::stream_priority_range const range{0, -5};
  CHECK(range.contains(0));
  CHECK(range.contains(-5));
  CHECK_FALSE(range.contains(1));
  CHECK_FALSE(range.contains(-6));
}
