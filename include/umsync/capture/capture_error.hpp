// umsync/capture/capture_error.hpp: the exception for a capture-unsafe call caught in time.
//
// Inside stream capture, cudaMemPrefetchAsync, cudaMemAdvise, cudaMalloc, cudaStreamSynchronize
// and cudaStreamAttachMemAsync fail with cudaErrorStreamCaptureUnsupported and also invalidate
// the whole capture (measured on the H200): the error surfaces far away, at end of capture.
// umsync's guards throw capture_error *before* such a call, and the capture stays valid.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <string>
#include <string_view>

UMSYNC_NAMESPACE_BEGIN

/// A capture-unsafe operation was about to run while a capture was in progress. A bug in the
/// calling program (it derives from usage_error); the capture was left untouched.
class capture_error : public usage_error {
 public:
  capture_error(std::string_view operation, std::string_view why)
      : usage_error(std::string(operation) + " while a stream capture is in progress: " + std::string(why) +
                    "; it would fail with cudaErrorStreamCaptureUnsupported and invalidate the capture. "
                    "Call it before the capture begins or after capture_scope::end()"),
        operation_(operation)
  {}

  /// The CUDA call that was refused, e.g. "cudaMemPrefetchAsync".
  [[nodiscard]] std::string const& operation() const noexcept { return operation_; }

 private:
  std::string operation_;
};

UMSYNC_NAMESPACE_END
