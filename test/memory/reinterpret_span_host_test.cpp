// Host tests of umsync/memory/reinterpret_span.hpp: the view keeps the memory's kind, stream tag,
// bounds and constness, sees the same bytes, and refuses a misaligned address or a size that is
// not a whole number of the new elements with umsync::invalid_argument naming the caller.
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/reinterpret_span.hpp>

#include <doctest/doctest.h>
#include <vector_types.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace {

struct producer {};

template <class U, class Span>
using reinterpreted_t = decltype(umsync::reinterpret_span<U>(std::declval<Span const&>()));

// Kind, tag and constness are kept; a span of T gives a span of U const when asked for one.
static_assert(std::is_same_v<reinterpreted_t<float4, umsync::device_span<float, producer>>,
                             umsync::device_span<float4, producer>>);
static_assert(std::is_same_v<reinterpreted_t<float4 const, umsync::device_span<float, producer>>,
                             umsync::device_span<float4 const, producer>>);
static_assert(std::is_same_v<reinterpreted_t<float const, umsync::managed_span<float4 const>>,
                             umsync::managed_span<float const>>);
static_assert(std::is_same_v<reinterpreted_t<std::byte, umsync::pinned_span<double>>, umsync::pinned_span<std::byte>>);

/// A user's memory type, answering through ADL (memory_range.hpp).
struct words {
  std::uint32_t* p;
  std::size_t n;
  friend umsync::device_span<std::uint32_t, producer> umsync_memory(words& w)
  {
    return umsync::device_span<std::uint32_t, producer>::adopt(w.p, w.n);
  }
  friend umsync::device_span<std::uint32_t const, producer> umsync_memory(words const& w)
  {
    return umsync::device_span<std::uint32_t const, producer>::adopt(w.p, w.n);
  }
};
static_assert(std::is_same_v<reinterpreted_t<uint4 const, words>, umsync::device_span<uint4 const, producer>>);

}  // namespace

TEST_CASE("reinterpret_span: float as float4 and back views the same bytes and bounds")
{
  alignas(16) float values[4 * 5] = {};
  for (std::size_t i = 0; i < std::size(values); ++i) {
    values[i] = static_cast<float>(i) * 0.5F;
  }
  auto const floats = umsync::device_span<float, producer>::adopt(values, std::size(values));
  auto const vectors = umsync::reinterpret_span<float4>(floats);
  CHECK(vectors.size() == 5);
  CHECK(vectors.size_bytes() == floats.size_bytes());
  CHECK(static_cast<void*>(vectors.data()) == static_cast<void*>(floats.data()));
  CHECK(vectors.data()[2].z == values[4 * 2 + 2]);
  auto const back = umsync::reinterpret_span<float const>(vectors);
  CHECK(back.size() == floats.size());
  CHECK(back.data() == floats.data());
  // A slice first, then the view: bounds are the slice's.
  auto const tail = umsync::reinterpret_span<float4>(floats.subspan(8));
  CHECK(tail.size() == 3);
  CHECK(tail.data()[0].x == values[8]);
  CHECK(umsync::reinterpret_span<float4>(floats.first(0)).empty());
  words user{reinterpret_cast<std::uint32_t*>(values), std::size(values)};
  CHECK(umsync::reinterpret_span<uint4>(user).size() == 5);
}

TEST_CASE("reinterpret_span: a misaligned address or a partial element throws umsync::invalid_argument")
{
  alignas(16) float values[4 * 5] = {};
  auto const floats = umsync::device_span<float, producer>::adopt(values, std::size(values));
  auto const message = [](auto&& make) {
    try {
      static_cast<void>(make());
    } catch (umsync::invalid_argument const& failure) {
      return std::string(failure.what());
    }
    return std::string("no exception");
  };
  std::string const misaligned = message([&] { return umsync::reinterpret_span<float4>(floats.subspan(1, 4)); });
  CHECK(misaligned.find("umsync: reinterpret_span: the memory's address is not aligned to 16 bytes") == 0);
  CHECK(misaligned.find("memory/reinterpret_span_host_test.cpp") != std::string::npos);
  std::string const partial = message([&] { return umsync::reinterpret_span<float4>(floats.first(6)); });
  CHECK(partial.find("umsync: reinterpret_span: a span of 24 bytes is not a whole number of elements of 16 bytes") ==
        0);
  CHECK_THROWS_AS(static_cast<void>(umsync::reinterpret_span<float4>(floats.first(6))), umsync::invalid_argument);
  CHECK_NOTHROW(static_cast<void>(umsync::reinterpret_span<float2>(floats.subspan(2, 4))));
}
