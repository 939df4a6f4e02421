// Compile-time properties of umsync/timed_event.hpp (host only): an owning, move-only event whose
// differences are std::chrono durations in milliseconds.
#include <doctest/doctest.h>
#include <umsync/timed_event.hpp>

#include <chrono>
#include <type_traits>

static_assert(!std::is_copy_constructible_v<umsync::timed_event>);
static_assert(!std::is_copy_assignable_v<umsync::timed_event>);
static_assert(std::is_nothrow_move_constructible_v<umsync::timed_event>);
static_assert(std::is_nothrow_move_assignable_v<umsync::timed_event>);
static_assert(umsync::event_handle<umsync::timed_event>);
// A timed event is not an ordering event (umsync::event has timing disabled): neither converts.
static_assert(!std::is_convertible_v<umsync::timed_event const&, umsync::event const&>);
static_assert(!std::is_convertible_v<umsync::event const&, umsync::timed_event const&>);

// The difference of two is a chrono duration of float milliseconds, as elapsed() returns.
static_assert(std::is_same_v<umsync::timed_event::duration, std::chrono::duration<float, std::milli>>);
static_assert(
    std::is_same_v<decltype(std::declval<umsync::timed_event const&>() - std::declval<umsync::timed_event const&>()),
                   umsync::timed_event::duration>);
static_assert(std::is_same_v<decltype(umsync::timed_event::elapsed(std::declval<umsync::timed_event const&>(),
                                                                   std::declval<umsync::timed_event const&>())),
                             umsync::timed_event::duration>);

TEST_CASE("timed_event: a difference converts to any chrono duration (the static_asserts above)")
{
  umsync::timed_event::duration const ms{1.5F};
  CHECK(std::chrono::duration_cast<std::chrono::microseconds>(ms).count() == 1500);
  CHECK(std::chrono::duration<double>(ms).count() == doctest::Approx(0.0015));
}

TEST_CASE("timed_event: an interprocess timed event is refused before CUDA, naming what to use")
{
  // CUDA disables timing on interprocess events, so such an event could time nothing. The refusal
  // comes before any CUDA call: this test runs on machines without a GPU.
  CHECK_THROWS_WITH_AS(umsync::timed_event({.interprocess = true}),
                       doctest::Contains("use umsync::event for an event shared with another process"),
                       umsync::invalid_argument);
}
