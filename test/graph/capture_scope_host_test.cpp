// Compile-time properties of umsync/graph/capture_scope.hpp and umsync/capture/ (capturing_stream.hpp,
// non_capturing_stream.hpp, capture_status.hpp), host only, no device needed.
#include <doctest/doctest.h>
#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream_edge.hpp>

#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace {
struct compute {};
struct copy {};

template <class S>
// clang-format off
concept has_synchronize = requires(S const& s) { s.synchronize(); };
// clang-format on
template <class S>
// clang-format off
concept has_view = requires(S const& s) { s.view(); };
// clang-format on
template <class S>
// clang-format off
concept has_priority = requires(S const& s) { s.priority(); };
// clang-format on
}  // namespace

using capturing = umsync::capturing_stream<compute>;

// A capturing stream is a stream handle (launch, copy_async, event record/wait accept it)...
static_assert(umsync::stream_handle<capturing>);
static_assert(std::is_same_v<capturing::tag_type, compute>);
// ...but not a non-capturing one, which host-sync, prefetch and advice functions require.
static_assert(!umsync::non_capturing_stream<capturing>);
static_assert(!umsync::non_capturing_stream<capturing const&>);
static_assert(umsync::non_capturing_stream<umsync::stream<compute>>);
static_assert(umsync::non_capturing_stream<umsync::stream_view<compute>>);
static_assert(!umsync::non_capturing_stream<cudaStream_t>);

// What cannot be captured is absent from the type, or (synchronize(), ready(): members a
// stream_view has, which users reach for) declared only to fail with the rule's message, which
// the compile-fail tests capturing_stream_synchronize and capturing_stream_ready check.
static_assert(has_synchronize<umsync::stream<compute>>);
static_assert(!has_priority<capturing>);
static_assert(!has_view<capturing>);  // no stream_view with synchronize() one call away

// Only a capture_scope makes one: not from a raw handle, not from a stream.
static_assert(!std::is_constructible_v<capturing, cudaStream_t>);
static_assert(!std::is_constructible_v<capturing, umsync::stream<compute> const&>);
static_assert(!std::is_constructible_v<capturing, umsync::stream_view<compute>>);
static_assert(!std::is_default_constructible_v<capturing>);
// It converts to a view of its own tag only (stream_buffer, stream_edge take views).
static_assert(std::is_convertible_v<capturing, umsync::stream_view<compute>>);
static_assert(!std::is_convertible_v<capturing, umsync::stream_view<copy>>);
static_assert(std::is_trivially_copyable_v<capturing>);

// Edges between capturing streams deduce their tags.
static_assert(std::is_same_v<decltype(umsync::stream_edge(std::declval<capturing const&>(),
                                                          std::declval<umsync::capturing_stream<copy> const&>())),
                             umsync::stream_edge<compute, copy>>);
static_assert(std::is_same_v<decltype(umsync::stream_edge(std::declval<capturing const&>(),
                                                          std::declval<umsync::capturing_stream<copy> const&>(),
                                                          umsync::deferred)),
                             umsync::stream_edge<compute, copy, umsync::edge_timing::deferred>>);

// Stream buffers allocate on a capturing stream of their tag (a graph memory node), not another.
// (Another tag's buffer is declared constructible only to fail with the rule's message:
// compile-fail test buffer_tag_differs_from_stream.)
static_assert(std::is_constructible_v<umsync::stream_buffer<float, compute>, std::size_t, capturing>);

// A scope owns a capture tied to its thread: neither copied nor moved.
using scope = umsync::capture_scope<compute>;
static_assert(!std::is_copy_constructible_v<scope>);
static_assert(!std::is_move_constructible_v<scope>);
static_assert(!std::is_copy_assignable_v<scope>);
static_assert(!std::is_move_assignable_v<scope>);
static_assert(std::is_nothrow_destructible_v<scope>);
// A scope over a temporary stream would capture a destroyed stream.
static_assert(!std::is_constructible_v<scope, umsync::stream<compute>&&>);
static_assert(std::is_constructible_v<scope, umsync::stream<compute> const&>);
static_assert(std::is_constructible_v<scope, umsync::stream_view<compute>>);
static_assert(!std::is_constructible_v<scope, umsync::stream_view<copy>>);
static_assert(std::is_same_v<decltype(umsync::capture_scope(std::declval<umsync::stream<copy> const&>())),
                             umsync::capture_scope<copy>>);
static_assert(std::is_same_v<decltype(umsync::capture_scope(std::declval<umsync::stream_view<copy>>(),
                                                            umsync::capture_mode::relaxed)),
                             umsync::capture_scope<copy>>);
static_assert(std::is_same_v<decltype(std::declval<scope&>().end()), umsync::graph>);
static_assert(std::is_same_v<decltype(std::declval<scope const&>().stream()), capturing>);
static_assert(std::is_same_v<decltype(std::declval<scope&>().fork(std::declval<umsync::stream<copy> const&>())),
                             umsync::capturing_stream<copy>>);

// Modes are CUDA's, named.
static_assert(static_cast<int>(umsync::capture_mode::global) == cudaStreamCaptureModeGlobal);
static_assert(static_cast<int>(umsync::capture_mode::per_thread) == cudaStreamCaptureModeThreadLocal);
static_assert(static_cast<int>(umsync::capture_mode::relaxed) == cudaStreamCaptureModeRelaxed);

// A refused call is a bug in the caller: capture_error is a usage_error.
static_assert(std::is_base_of_v<umsync::usage_error, umsync::capture_error>);

TEST_CASE("capture_error names the refused call, the reason and the way out")
{
  umsync::capture_error const error("cudaMemPrefetchAsync", "its stream is being captured into a graph");
  std::string const what = error.what();
  CHECK(std::string_view(error.operation()) == "cudaMemPrefetchAsync");
  CHECK(what.rfind("umsync: cudaMemPrefetchAsync while a stream capture is in progress", 0) == 0);
  CHECK(what.find("its stream is being captured into a graph") != std::string::npos);
  CHECK(what.find("invalidate the capture") != std::string::npos);
  CHECK(what.find("capture_scope::end()") != std::string::npos);
}

TEST_CASE("the capture registry counts strict and global captures and forgets them at the end")
{
  using registry = umsync::detail::capture_registry;
  int const strict = registry::strict_on_this_thread();
  int const global = registry::global_anywhere().load();
  registry::begin(umsync::capture_mode::global);
  registry::begin(umsync::capture_mode::per_thread);
  registry::begin(umsync::capture_mode::relaxed);
  CHECK(registry::strict_on_this_thread() == strict + 2);
  CHECK(registry::global_anywhere().load() == global + 1);
  CHECK(registry::global_on_this_thread() >= 1);
  registry::end(umsync::capture_mode::relaxed);
  registry::end(umsync::capture_mode::per_thread);
  registry::end(umsync::capture_mode::global);
  CHECK(registry::strict_on_this_thread() == strict);
  CHECK(registry::global_anywhere().load() == global);
}
