// Compile-time properties of umsync/stream.hpp and event.hpp (host only; stream_view's:
// stream_view_host_test.cpp, timed_event's: timed_event_host_test.cpp).
#include <doctest/doctest.h>
#include <umsync/event.hpp>
#include <umsync/stream.hpp>

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

// Tags do not mix: a stream of one tag gives no view of another.
static_assert(!std::is_convertible_v<umsync::stream<compute> const&, umsync::stream_view<copy>>);
static_assert(std::is_convertible_v<umsync::stream<compute> const&, umsync::stream_view<compute>>);
// A view of a temporary stream would dangle.
static_assert(!std::is_convertible_v<umsync::stream<compute>&&, umsync::stream_view<compute>>);

static_assert(umsync::stream_handle<umsync::stream<compute>>);
static_assert(umsync::event_handle<umsync::event>);

TEST_CASE("stream priority ranges contain their ends only")
{
  umsync::stream_priority_range const range{0, -5};
  CHECK(range.contains(0));
  CHECK(range.contains(-5));
  CHECK_FALSE(range.contains(1));
  CHECK_FALSE(range.contains(-6));
}
