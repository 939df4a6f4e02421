// umsync/capture/capture_status.hpp: whether a stream is capturing, and the run-time checks
// built on it.
//
// The capture checks are one family: forbid_in_capture<Op, Stream>() rejects at compile time
// (non_capturing_stream.hpp); at run time check_not_capturing throws capture_error, always,
// and debug_check_not_capturing only in UMSYNC_DEBUG builds; capture_status_of and
// capture_refuses_unsafe_calls only ask.
//
//   umsync::check_not_capturing(s.get(), "cudaMemPrefetchAsync");        // throws capture_error
//   umsync::debug_check_not_capturing(s.get(), "cudaMemPrefetchAsync");  // the same, debug builds only
//   umsync::check_not_capturing("cudaMalloc");  // no stream: asks umsync's capture registry
//
// Called on a capturing stream, cudaMemPrefetchAsync, cudaMemAdvise, cudaMalloc,
// cudaStreamSynchronize and cudaStreamAttachMemAsync fail *and* invalidate the capture
// (measured on the H200), so the error shows up later at capture_scope::end(), far from the
// call. These guards throw capture_error before the call, and the capture stays valid.
#pragma once

#include <umsync/capture/capture_error.hpp>
#include <umsync/capture/capture_mode.hpp>
#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN

enum class capture_status {
  none,         ///< the stream's work runs when queued
  active,       ///< the stream's work is being captured
  invalidated,  ///< a capture failed; it must still be ended on its origin stream
};

/// The capture status of `stream` (cudaStreamIsCapturing). The legacy stream while a blocking
/// stream captures is active: using it would join that capture.
[[nodiscard]] inline capture_status capture_status_of(cudaStream_t stream,
                                                      std::source_location where = std::source_location::current())
{
  switch (detail::stream_capture_status(stream, where)) {
    case cudaStreamCaptureStatusActive: return capture_status::active;
    case cudaStreamCaptureStatusInvalidated: return capture_status::invalidated;
    case cudaStreamCaptureStatusNone: break;
  }
  return capture_status::none;
}

/// Throws capture_error naming `operation` when `stream` is capturing (or its capture was
/// invalidated). Always checks: one cudaStreamIsCapturing call.
inline void check_not_capturing(cudaStream_t stream, detail::text_view operation,
                                std::source_location where = std::source_location::current())
{
  detail::refuse_in_capture(stream, operation, where);
}

/// check_not_capturing in UMSYNC_DEBUG builds; nothing in release builds. For hot paths that
/// take raw handles or stream_views, where the types cannot tell.
inline void debug_check_not_capturing(cudaStream_t stream, detail::text_view operation,
                                      std::source_location where = std::source_location::current())
{
  if constexpr (debug_build) {
    check_not_capturing(stream, operation, where);
  } else {
    static_cast<void>(stream);
    static_cast<void>(operation);
    static_cast<void>(where);
  }
}

/// True when a potentially unsafe stream-less call (cudaMalloc, cudaMemAdvise) from this
/// thread would be refused by a umsync capture in progress (see capture_mode.hpp). Captures
/// begun with the raw API are not counted.
[[nodiscard]] inline bool capture_refuses_unsafe_calls(std::source_location where = std::source_location::current())
{
  // The thread's own interaction mode decides which captures it must respect: swap it out
  // and back in to read it.
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode", where);
  cudaStreamCaptureMode restore = mode;
  check(cudaThreadExchangeStreamCaptureMode(&restore), "cudaThreadExchangeStreamCaptureMode", where);
  if (mode == cudaStreamCaptureModeRelaxed) {
    return false;
  }
  if (detail::capture_registry::strict_on_this_thread() > 0) {
    return true;
  }
  int const global_elsewhere = detail::capture_registry::global_anywhere().load() -
                               detail::capture_registry::global_on_this_thread();
  return mode == cudaStreamCaptureModeGlobal && global_elsewhere > 0;
}

/// Throws capture_error naming `operation`, a call that takes no stream (cudaMalloc,
/// cudaMemAdvise), when capture_refuses_unsafe_calls(). Always checks.
inline void check_not_capturing(detail::text_view operation,
                                std::source_location where = std::source_location::current())
{
  if (capture_refuses_unsafe_calls(where)) {
    throw capture_error(operation,
                        "a umsync capture in progress refuses potentially unsafe calls from this thread (at ", where,
                        ")");
  }
}

/// Blocks the host until all work queued on `stream` is done. Not on a capturing stream:
/// captured work has not run (compile-time error for capturing_stream, capture_error at run
/// time for a view of one).
template <stream_handle Stream>
void synchronize(Stream const& stream, std::source_location where = std::source_location::current())
{
  forbid_in_capture<capture_unsafe::host_sync, Stream>();
  check_not_capturing(stream.get(), "cudaStreamSynchronize", where);
  check(cudaStreamSynchronize(stream.get()), "cudaStreamSynchronize", where);
  detail::debug::note_host_waited_for_stream(stream.get());
}

UMSYNC_NAMESPACE_END
