// Host tests of umsync/memory/pinned_buffer.hpp: its types' properties, and what it decides
// before calling CUDA (no device needed: a call that reached the runtime here would throw).
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/pinned_buffer.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

// Owners are move-only, and moves never throw.
static_assert(!std::is_copy_constructible_v<umsync::pinned_buffer<float>>);
static_assert(!std::is_copy_assignable_v<umsync::pinned_buffer<float>>);
static_assert(std::is_nothrow_move_constructible_v<umsync::pinned_buffer<float>>);
static_assert(std::is_nothrow_move_assignable_v<umsync::pinned_buffer<float>>);
static_assert(!std::is_copy_constructible_v<umsync::host_registration<float>>);
static_assert(std::is_nothrow_move_constructible_v<umsync::host_registration<float>>);
// A size is no buffer, a std::span no registration: both constructors are explicit.
static_assert(!std::is_convertible_v<std::size_t, umsync::pinned_buffer<float>>);
static_assert(!std::is_convertible_v<std::span<float>, umsync::host_registration<float>>);

// Both are pinned host memory to umsync's calls, usable on any stream; const access is read-only.
static_assert(std::is_same_v<umsync::memory_span_of_t<umsync::pinned_buffer<float>>, umsync::pinned_span<float>>);
static_assert(
    std::is_same_v<umsync::memory_span_of_t<umsync::pinned_buffer<float> const>, umsync::pinned_span<float const>>);
static_assert(
    std::is_same_v<decltype(std::declval<umsync::pinned_buffer<float>&>().span()), umsync::pinned_span<float>>);
static_assert(std::is_same_v<decltype(std::declval<umsync::pinned_buffer<float> const&>().span()),
                             umsync::pinned_span<float const>>);
static_assert(umsync::memory_kind_of<umsync::host_registration<float>> == umsync::memory_kind::pinned_host);
static_assert(
    std::is_same_v<umsync::memory_span_of_t<umsync::host_registration<float const>>, umsync::pinned_span<float const>>);

TEST_CASE("a pinned_buffer of zero elements allocates nothing and is empty, moved or not")
{
  umsync::pinned_buffer<float> none(0);
  CHECK(none.empty());
  CHECK(none.data() == nullptr);
  CHECK(none.size() == 0);
  CHECK(none.size_bytes() == 0);
  CHECK(none.begin() == none.end());
  CHECK(none.span().empty());
  umsync::pinned_buffer<float> const owner(std::move(none));
  CHECK(owner.empty());
  CHECK(owner.data() == nullptr);
}

TEST_CASE("a pinned_buffer whose byte size overflows size_t throws umsync::length_error before calling CUDA")
{
  std::size_t const count = std::numeric_limits<std::size_t>::max() / 4;
  try {
    umsync::pinned_buffer<double> const buffer(count);
    FAIL("no throw");
  } catch (umsync::length_error const& e) {
    std::string const what = e.what();
    CHECK(what.find("pinned_buffer of " + std::to_string(count) + " elements of 8 bytes overflows size_t") !=
          std::string::npos);
  }
  CHECK_THROWS_AS(umsync::pinned_buffer<double>{count}, umsync::length_error);
}

TEST_CASE("a host_registration of no memory registers nothing (no CUDA call) and names an empty span")
{
  umsync::host_registration<float> const registration{std::span<float>{}};
  CHECK(registration.span().empty());
  CHECK(registration.span().data() == nullptr);
}
