// umsync/detail/capture_check.hpp: the one query of a stream's capture status, the refusal built
// on it, and the count of umsync captures in progress.
//
// capture/capture_status.hpp is the public face of these checks. They live here, in detail/,
// because stream_view.hpp and event.hpp (above capture/ in the layers) need them too: a host
// synchronization of a capturing stream, or of an event recorded in a capture, fails with
// cudaErrorStreamCaptureUnsupported *and* invalidates the capture, so they refuse it first.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// The capture status of `stream` (cudaStreamIsCapturing). The legacy stream while a blocking
/// stream captures counts as capturing: using it would join that capture.
[[nodiscard]] inline cudaStreamCaptureStatus stream_capture_status(cudaStream_t stream,
                                                                   std::source_location const& where)
{
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaError_t const result = cudaStreamIsCapturing(stream, &status);
  if (result == cudaErrorStreamCaptureImplicit) {
    static_cast<void>(cudaGetLastError());
    return cudaStreamCaptureStatusActive;
  }
  check(result, "cudaStreamIsCapturing", where);
  return status;
}

/// refuse_in_capture's failure, out of line.
[[noreturn, gnu::cold]] void throw_in_capture(text_view operation, bool invalidated, std::source_location const& where);

/// Throws capture_error naming `operation` when `stream` is capturing (or its capture was
/// invalidated): one cudaStreamIsCapturing call.
inline void refuse_in_capture(cudaStream_t stream, text_view operation, std::source_location const& where)
{
  cudaStreamCaptureStatus const status = stream_capture_status(stream, where);
  if (status != cudaStreamCaptureStatusNone) [[unlikely]] {
    throw_in_capture(operation, status == cudaStreamCaptureStatusInvalidated, where);
  }
}

/// umsync captures (capture_scope, any mode) in progress in the process, kept by
/// capture_registry (capture/capture_mode.hpp). An event asks it, one load, when it is recorded.
[[nodiscard]] inline atomic_word<int>& captures_in_progress() noexcept
{
  static atomic_word<int> count{0};
  return count;
}

// The compiled part of this header (config.hpp: inline here, or compiled once with
// UMSYNC_SEPARATE_COMPILATION).
#if UMSYNC_DETAIL_COMPILED_BODIES

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void throw_in_capture(text_view operation, bool invalidated,
                                                               std::source_location const& where)
{
  if (invalidated) {
    throw capture_error(operation, "its stream belongs to a capture that is already invalidated (at ", where, ")");
  }
  throw capture_error(operation, "its stream is being captured into a graph (at ", where, ")");
}

#endif  // UMSYNC_DETAIL_COMPILED_BODIES

}  // namespace detail
UMSYNC_NAMESPACE_END
