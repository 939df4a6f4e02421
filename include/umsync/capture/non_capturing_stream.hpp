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

#include <umsync/capture/capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
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

/// The operations a capture cannot hold; each names its rule for forbid_in_capture.
namespace capture_unsafe {
struct prefetch {};                ///< cudaMemPrefetchAsync (and the batch forms)
struct advise {};                  ///< cudaMemAdvise
struct host_sync {};               ///< cudaStreamSynchronize, cudaEventSynchronize, blocking copies
struct synchronous_allocation {};  ///< cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaFree
struct attach_memory {};           ///< cudaStreamAttachMemAsync
}  // namespace capture_unsafe

/// Fails to compile, naming `Operation` and why, when `Stream` is a capturing_stream.
template <class Operation, class Stream>
constexpr void forbid_in_capture() noexcept
{
  if constexpr (!non_capturing_stream<Stream>) {
    if constexpr (std::is_same_v<Operation, capture_unsafe::prefetch>) {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would "
                    "invalidate the capture; prefetch before the capture begins or after capture_scope::end()");
    } else if constexpr (std::is_same_v<Operation, capture_unsafe::advise>) {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: memory advice on a capturing stream: cudaMemAdvise cannot be captured and would "
                    "invalidate the capture; advise before the capture begins or after capture_scope::end()");
    } else if constexpr (std::is_same_v<Operation, capture_unsafe::host_sync>) {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: host synchronization on a capturing stream: captured work does not run until the "
                    "graph is launched, and cudaStreamSynchronize would invalidate the capture; launch the "
                    "graph_exec, then synchronize");
    } else if constexpr (std::is_same_v<Operation, capture_unsafe::synchronous_allocation>) {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: cudaMalloc-style allocation on a capturing stream: it is not stream-ordered, is not "
                    "captured and would invalidate the capture; allocate with async_pool_buffer (a graph memory "
                    "node) or before the capture begins");
    } else if constexpr (std::is_same_v<Operation, capture_unsafe::attach_memory>) {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: cudaStreamAttachMemAsync on a capturing stream: it cannot be captured and would "
                    "invalidate the capture; attach before the capture begins");
    } else {
      static_assert(detail::dependent_false<Stream>,
                    "umsync: this operation cannot be captured into a graph and would invalidate the capture");
    }
  }
}

UMSYNC_NAMESPACE_END
