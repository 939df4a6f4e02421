// umsync/capture/non_capturing_stream.hpp: the compile-time rule "not on a capturing stream".
//
// A function that does something no graph can hold (host synchronization, prefetch, memory
// advice, cudaMalloc) and takes any stream_handle states its rule with one line:
//
//   template <class Memory, stream_handle Stream>
//   void prefetch(Memory const& memory, managed_location to, Stream const& s)
//   {
//     forbid_in_capture<capture_unsafe::prefetch, Stream>();   // a capturing_stream: static_assert
//     ...
//   }
//
// The static_assert names the operation and why. `non_capturing_stream` is the plain concept
// for constraints. A stream_view or raw handle may still name a stream that happens to be
// capturing: capture_status.hpp checks that at run time.
#pragma once

#include <umsync/capture/capture_unsafe.hpp>
#include <umsync/capture/capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/stream_view.hpp>

#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

template <class S>
inline constexpr bool is_capturing_stream_v = false;
template <class Tag>
inline constexpr bool is_capturing_stream_v<capturing_stream<Tag>> = true;

/// A stream handle whose work runs when queued, not one being captured into a graph.
template <class S>
concept non_capturing_stream = stream_handle<std::remove_cvref_t<S>> && !is_capturing_stream_v<std::remove_cvref_t<S>>;

/// Fails to compile, naming `Operation` and why, when `Stream` is a capturing_stream.
template <class Operation, class Stream>
constexpr void forbid_in_capture() noexcept
{
  if constexpr (!non_capturing_stream<Stream>) {
    detail::reject_in_capture<Operation, Stream>();
  }
}

UMSYNC_NAMESPACE_END
