// Host tests of umsync/memory/memory_range.hpp: one protocol says what memory is, for umsync's
// own types and for a user's (support/user_memory.hpp), which opt in from their own namespace.
#include "support/user_memory.hpp"

#include <doctest/doctest.h>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <span>
#include <type_traits>
#include <vector>

namespace {
struct compute {};
struct copy {};
}  // namespace

// umsync's own memory answers with its kind, its tag, and constness for read-only access.
static_assert(umsync::memory_range<umsync::stream_buffer<float, compute>>);
static_assert(std::is_same_v<umsync::memory_span_of_t<umsync::stream_buffer<float, compute>>,
                             umsync::device_span<float, compute>>);
static_assert(std::is_same_v<umsync::memory_span_of_t<umsync::stream_buffer<float, compute> const>,
                             umsync::device_span<float const, compute>>);
static_assert(umsync::memory_kind_of<umsync::managed_buffer<int>> == umsync::memory_kind::managed);
static_assert(umsync::memory_kind_of<umsync::pinned_buffer<int>> == umsync::memory_kind::pinned_host);
static_assert(umsync::memory_kind_of<umsync::pageable_span<int>> == umsync::memory_kind::pageable_host);
static_assert(
    std::is_same_v<umsync::memory_span_of_t<umsync::managed_span<int const>>, umsync::managed_span<int const>>);

// A user's types take part without umsync naming them.
static_assert(umsync::memory_range<userlib::device_array<float>>);
static_assert(
    std::is_same_v<umsync::memory_span_of_t<userlib::device_array<float> const>, umsync::device_span<float const>>);
static_assert(
    std::is_same_v<umsync::memory_span_of_t<userlib::stream_array<float, copy>>, umsync::device_span<float, copy>>);
static_assert(umsync::memory_kind_of<userlib::host_array<char>> == umsync::memory_kind::pageable_host);

// What answers nothing is not memory: raw pointers, standard containers, other types.
static_assert(!umsync::memory_range<float*>);
static_assert(!umsync::memory_range<std::vector<float>>);
static_assert(!umsync::memory_range<std::span<float>>);
static_assert(!umsync::memory_range<userlib::opaque_handle>);

// Stream binding: tagged memory on its own tag only; untagged memory anywhere.
static_assert(umsync::usable_on_stream<compute, compute>);
static_assert(!umsync::usable_on_stream<compute, copy>);
static_assert(umsync::usable_on_stream<umsync::untagged, copy>);

// A temporary that owns its memory frees it before queued work runs; a view does not.
static_assert(umsync::detail::frees_memory_when_temporary<umsync::stream_buffer<float, compute>>);
static_assert(umsync::detail::frees_memory_when_temporary<userlib::device_array<float>>);
static_assert(!umsync::detail::frees_memory_when_temporary<umsync::device_span<float>>);

TEST_CASE("memory_of answers with the user's address, count, kind and tag")
{
  std::vector<float> storage(37);
  userlib::stream_array<float, copy> bound{storage.data(), storage.size()};
  auto const span = umsync::memory_of(bound);
  CHECK(span.data() == storage.data());
  CHECK(span.size() == storage.size());
  CHECK(span.size_bytes() == storage.size() * sizeof(float));
  userlib::stream_array<float, copy> const& read_only = bound;
  auto const const_span = umsync::memory_of(read_only);
  CHECK(const_span.data() == storage.data());
  static_assert(std::is_const_v<std::remove_pointer_t<decltype(const_span.data())>>);
}

TEST_CASE("memory_of passes a memory_span through unchanged")
{
  int words[4] = {};
  auto const span = umsync::pinned_span<int>::adopt(words, 4);
  auto const same = umsync::memory_of(span);
  CHECK(same.data() == words);
  CHECK(same.size() == 4);
}
