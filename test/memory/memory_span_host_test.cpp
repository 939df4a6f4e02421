// Host tests of umsync/memory/memory_span.hpp: slices (subspan, first, last) keep the kind, the
// stream tag and the constness of the span they come from, view the right elements, work in
// constant expressions, and refuse out-of-range arguments with umsync::out_of_range.
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

struct producer {};

template <class Span>
using subspan_t = decltype(std::declval<Span const&>().subspan(std::size_t{1}, std::size_t{2}));
template <class Span>
using subspan_to_end_t = decltype(std::declval<Span const&>().subspan(std::size_t{1}));
template <class Span>
using first_t = decltype(std::declval<Span const&>().first(std::size_t{1}));
template <class Span>
using last_t = decltype(std::declval<Span const&>().last(std::size_t{1}));

/// Every slice of `Span` is a `Span`: the same element type (constness), kind and tag.
template <class Span>
constexpr bool slices_keep_type = std::is_same_v<subspan_t<Span>, Span>&& std::is_same_v<subspan_to_end_t<Span>, Span>&&
    std::is_same_v<first_t<Span>, Span>&& std::is_same_v<last_t<Span>, Span>;

static_assert(slices_keep_type<umsync::device_span<float, producer>>);
static_assert(slices_keep_type<umsync::device_span<float const, producer>>);
static_assert(slices_keep_type<umsync::device_span<int>>);
static_assert(slices_keep_type<umsync::pinned_span<double const>>);
static_assert(slices_keep_type<umsync::managed_span<float>>);
static_assert(slices_keep_type<umsync::pageable_span<char>>);
static_assert(slices_keep_type<umsync::memory_span<float, umsync::memory_kind::managed, producer>>);
// The tag is kept, not dropped to untagged, and a read-only span's slices stay read-only.
static_assert(!std::is_same_v<subspan_t<umsync::device_span<float, producer>>, umsync::device_span<float>>);
static_assert(std::is_same_v<first_t<umsync::device_span<float const, producer>>::element_type, float const>);
static_assert(std::is_same_v<last_t<umsync::device_span<float, producer>>::bound_tag_type, producer>);
static_assert(last_t<umsync::pinned_span<int>>::kind == umsync::memory_kind::pinned_host);

/// Slices are usable in constant expressions.
constexpr bool slices_in_constant_expressions()
{
  int values[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  auto const span = umsync::device_span<int, producer>::adopt(values, 8);
  auto const middle = span.subspan(2, 3);
  auto const tail = span.subspan(5);
  auto const head = span.first(3);
  auto const end = span.last(2);
  return middle.data() == values + 2 && middle.size() == 3 && tail.data() == values + 5 && tail.size() == 3 &&
         head.data() == values && head.size() == 3 && end.data() == values + 6 && end.size() == 2 &&
         span.subspan(8, 0).empty() && span.subspan(8).empty() && span.first(0).empty() && span.last(0).empty() &&
         span.last(8).data() == values && span.subspan(0, 8).size() == 8 && middle.subspan(1, 1).data() == values + 3;
}
static_assert(slices_in_constant_expressions());

/// Calls `slice` and checks that it throws umsync::out_of_range (also a std::out_of_range and an
/// umsync::error) whose message starts "umsync: " and contains `call`.
template <class Slice>
void check_out_of_range(Slice&& slice, std::string const& call)
{
  bool thrown = false;
  try {
    static_cast<void>(std::forward<Slice>(slice)());
  } catch (umsync::out_of_range const& failure) {
    thrown = true;
    std::string const message = failure.what();
    CHECK(message.starts_with("umsync: memory_span::"));
    CHECK_MESSAGE(message.find(call) != std::string::npos, message);
    CHECK(dynamic_cast<std::exception const*>(&failure) != nullptr);
    CHECK(dynamic_cast<umsync::error const*>(&failure) != nullptr);
  }
  CHECK_MESSAGE(thrown, "no umsync::out_of_range from " << call);
}

}  // namespace

TEST_CASE("subspan, first and last view the right elements of every kind")
{
  float values[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  auto const device = umsync::device_span<float, producer>::adopt(values, 10);
  umsync::device_span<float, producer> const middle = device.subspan(3, 4);
  CHECK(middle.data() == values + 3);
  CHECK(middle.size() == 4);
  CHECK(middle.size_bytes() == 4 * sizeof(float));
  CHECK(device.subspan(7).data() == values + 7);
  CHECK(device.subspan(7).size() == 3);
  CHECK(device.first(4).data() == values);
  CHECK(device.first(4).size() == 4);
  CHECK(device.last(4).data() == values + 6);
  CHECK(device.last(4).size() == 4);
  // A slice of a slice, and the elements a pageable slice views.
  auto const host = umsync::pageable_span<float>::adopt(values, 10);
  auto const inner = host.subspan(2, 6).last(3).first(2);
  REQUIRE(inner.size() == 2);
  CHECK(inner.data()[0] == 5.0F);
  CHECK(inner.data()[1] == 6.0F);
  // Read-only: the const conversion and then a slice, or a slice and then the conversion.
  umsync::device_span<float const, producer> const read_only = device;
  CHECK(read_only.subspan(1, 2).data() == values + 1);
  umsync::device_span<float const, producer> const converted = device.last(1);
  CHECK(converted.data() == values + 9);
  // Empty slices at both ends, and of an empty span.
  CHECK(device.subspan(10, 0).empty());
  CHECK(device.subspan(10).empty());
  CHECK(device.subspan(0, 0).empty());
  CHECK(device.first(0).empty());
  CHECK(device.last(0).empty());
  umsync::managed_span<int> const none;
  CHECK(none.subspan(0, 0).empty());
  CHECK(none.first(0).data() == nullptr);
  CHECK(none.last(0).empty());
}

TEST_CASE("a slice out of range throws umsync::out_of_range naming the call")
{
  int values[8] = {};
  auto const span = umsync::pinned_span<int>::adopt(values, 8);
  check_out_of_range([&] { return span.subspan(9, 0); }, "subspan(9, 0)");
  check_out_of_range([&] { return span.subspan(4, 5); }, "subspan(4, 5)");
  check_out_of_range([&] { return span.subspan(1, std::numeric_limits<std::size_t>::max()); }, "subspan(1, ");
  check_out_of_range([&] { return span.subspan(std::numeric_limits<std::size_t>::max(), 2); }, "subspan(");
  check_out_of_range([&] { return span.subspan(9); }, "subspan(9)");
  check_out_of_range([&] { return span.first(9); }, "first(9)");
  check_out_of_range([&] { return span.last(9); }, "last(9)");
  check_out_of_range([] { return umsync::device_span<float, producer>{}.first(1); }, "of a span of 0 elements");
  // At the limit nothing throws.
  CHECK_NOTHROW(static_cast<void>(span.subspan(4, 4)));
  CHECK_NOTHROW(static_cast<void>(span.first(8)));
  CHECK_NOTHROW(static_cast<void>(span.last(8)));
}
