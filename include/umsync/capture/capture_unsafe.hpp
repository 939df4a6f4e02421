// umsync/capture/capture_unsafe.hpp: the operations a graph capture cannot hold, and the one
// message each gives when code asks for it on a capturing stream.
//
// forbid_in_capture (non_capturing_stream.hpp) and capturing_stream's refused members both
// report through detail::reject_in_capture, so a rule is worded once.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>

#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// The operations a capture cannot hold; each names its rule for forbid_in_capture.
namespace capture_unsafe {
struct prefetch {};                ///< cudaMemPrefetchAsync (and the batch forms)
struct advise {};                  ///< cudaMemAdvise
struct host_sync {};               ///< cudaStreamSynchronize, cudaEventSynchronize, blocking copies
struct synchronous_allocation {};  ///< cudaMalloc, cudaMallocManaged, cudaMallocHost, cudaFree
struct attach_memory {};           ///< cudaStreamAttachMemAsync
struct stream_query {};            ///< cudaStreamQuery (stream ready())
struct managed_allocation {};      ///< managed_buffer from the managed pool (cudaMallocFromPoolAsync)
}  // namespace capture_unsafe

namespace detail {

/// Always fails to compile (once instantiated with a dependent `Context`), naming `Operation`
/// and why a capture cannot hold it.
template <class Operation, class Context>
constexpr void reject_in_capture() noexcept
{
  if constexpr (std::is_same_v<Operation, capture_unsafe::prefetch>) {
    static_assert(dependent_false<Context>,
                  "umsync: prefetch on a capturing stream: cudaMemPrefetchAsync cannot be captured and would "
                  "invalidate the capture; prefetch before the capture begins or after capture_scope::end()");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::advise>) {
    static_assert(dependent_false<Context>,
                  "umsync: memory advice on a capturing stream: cudaMemAdvise cannot be captured and would "
                  "invalidate the capture; advise before the capture begins or after capture_scope::end()");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::host_sync>) {
    static_assert(dependent_false<Context>,
                  "umsync: host synchronization on a capturing stream: captured work does not run until the "
                  "graph is launched, and cudaStreamSynchronize would invalidate the capture; launch the "
                  "graph_exec, then synchronize");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::synchronous_allocation>) {
    static_assert(dependent_false<Context>,
                  "umsync: cudaMalloc-style allocation on a capturing stream: it is not stream-ordered, is not "
                  "captured and would invalidate the capture; allocate with stream_buffer (a graph memory "
                  "node) or before the capture begins");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::managed_allocation>) {
    static_assert(dependent_false<Context>,
                  "umsync: a managed_buffer allocated on a capturing stream: umsync captures device allocations "
                  "only (graph memory nodes, stream_buffer); allocate managed memory before the capture "
                  "begins");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::attach_memory>) {
    static_assert(dependent_false<Context>,
                  "umsync: cudaStreamAttachMemAsync on a capturing stream: it cannot be captured and would "
                  "invalidate the capture; attach before the capture begins");
  } else if constexpr (std::is_same_v<Operation, capture_unsafe::stream_query>) {
    static_assert(dependent_false<Context>,
                  "umsync: ready() on a capturing stream: captured work does not run until the graph is "
                  "launched, and cudaStreamQuery would invalidate the capture; ask the stream the graph_exec "
                  "is launched on");
  } else {
    static_assert(dependent_false<Context>,
                  "umsync: this operation cannot be captured into a graph and would invalidate the capture");
  }
}

}  // namespace detail
UMSYNC_NAMESPACE_END
