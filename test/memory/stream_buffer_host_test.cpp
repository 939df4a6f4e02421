// Compile-time properties of umsync/memory/stream_buffer.hpp (host only): the deprecated name
// async_pool_buffer (removed in 0.3.0), and its header memory/async_pool_buffer.hpp, still
// compile and name the same types, so code that names them passes its buffers to code that
// names stream_buffer.
#include <umsync/memory/async_pool_buffer.hpp>  // the forwarding header: brings stream_buffer
#include <umsync/stream.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <type_traits>

namespace {
struct compute {};

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static_assert(std::is_same_v<umsync::async_pool_buffer<float, compute>, umsync::stream_buffer<float, compute>>);
static_assert(std::is_same_v<umsync::async_pool_buffer<float>, umsync::stream_buffer<float, umsync::untagged>>);

/// A function written against the old name takes a stream_buffer, and one written against the
/// new name takes what the old name declares.
[[maybe_unused]] std::size_t old_name(umsync::async_pool_buffer<float, compute> const& buffer) { return buffer.size(); }
#pragma GCC diagnostic pop
[[maybe_unused]] std::size_t new_name(umsync::stream_buffer<float, compute> const& buffer) { return buffer.size(); }

static_assert(std::is_invocable_v<decltype(&old_name), umsync::stream_buffer<float, compute> const&>);
static_assert(std::is_invocable_v<decltype(&new_name), umsync::stream_buffer<float, compute> const&>);
}  // namespace

TEST_CASE("stream_buffer: the deprecated async_pool_buffer is the same type (the static_asserts above)")
{
  CHECK(std::is_same_v<decltype(&old_name), decltype(&new_name)>);
}
