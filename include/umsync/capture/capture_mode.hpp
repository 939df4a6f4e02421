// umsync/capture/capture_mode.hpp: how a capture limits "potentially unsafe" CUDA calls
// (cudaMalloc, cudaMemAdvise, host synchronization) made while it is in progress.
//
// The runtime answers such a call with cudaErrorStreamCaptureUnsupported *and* invalidates the
// capture. Which calls are refused depends on the capture's mode (cudaStreamCaptureMode):
//   global     - refused on the capturing thread, and on every thread whose own interaction
//                mode is global (the default), while the capture lasts. The safe default.
//   per_thread - refused on the capturing thread only (cudaStreamCaptureModeThreadLocal).
//   relaxed    - never refused; the caller vouches that nothing unsafe happens.
// umsync counts its own captures here so that capture_status.hpp can refuse a stream-less
// unsafe call (cudaMalloc has no stream to ask) before the runtime invalidates a capture.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/error.hpp>

UMSYNC_NAMESPACE_BEGIN

enum class capture_mode {
  global = cudaStreamCaptureModeGlobal,
  per_thread = cudaStreamCaptureModeThreadLocal,
  relaxed = cudaStreamCaptureModeRelaxed,
};

namespace detail {

/// umsync captures in progress: strict ones (not relaxed) on this thread, global ones anywhere,
/// and all of them anywhere (captures_in_progress, detail/capture_check.hpp).
struct capture_registry {
  static int& strict_on_this_thread() noexcept
  {
    thread_local int count = 0;
    return count;
  }
  static int& global_on_this_thread() noexcept
  {
    thread_local int count = 0;
    return count;
  }
  static atomic_word<int>& global_anywhere() noexcept
  {
    static atomic_word<int> count{0};
    return count;
  }

  static void begin(capture_mode mode) noexcept
  {
    captures_in_progress().fetch_add(1);
    if (mode != capture_mode::relaxed) {
      ++strict_on_this_thread();
    }
    if (mode == capture_mode::global) {
      ++global_on_this_thread();
      global_anywhere().fetch_add(1);
    }
  }
  static void end(capture_mode mode) noexcept
  {
    captures_in_progress().fetch_sub(1);
    if (mode != capture_mode::relaxed) {
      --strict_on_this_thread();
    }
    if (mode == capture_mode::global) {
      --global_on_this_thread();
      global_anywhere().fetch_sub(1);
    }
  }
};

}  // namespace detail

UMSYNC_NAMESPACE_END
