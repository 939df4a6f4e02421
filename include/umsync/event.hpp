// umsync/event.hpp: owning, move-only CUDA events for ordering.
//
// `event` has timing disabled: cheaper to record and wait on, it is what cross-stream edges
// use. An event that also takes timestamps is timed_event (timed_event.hpp); both share the
// owning handle detail::basic_event.
//
// Synchronizing with (or querying) an event last recorded in a stream capture would fail and
// invalidate the capture: while a umsync capture is in progress, record() remembers the stream
// of a record made in a capture, and synchronize() and ready() refuse with capture_error while
// that stream is still capturing.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN

struct event_options {
  /// The host thread sleeps in synchronize() instead of spinning.
  bool blocking_sync = false;
  /// The event may be shared with another process (cudaIpcGetEventHandle).
  bool interprocess = false;
};

namespace detail {

struct destroy_event {
  void operator()(cudaEvent_t handle) const noexcept
  {
    report_in_destructor(cudaEventDestroy(handle), "cudaEventDestroy");
    debug::note_event_destroyed(handle);
  }
};

/// The owning handle both event kinds share; `timing` fixes the flag at the type level.
template <bool Timing>
class basic_event {
 public:
  explicit basic_event(event_options options = {}, std::source_location where = std::source_location::current())
  {
    unsigned flags = Timing ? cudaEventDefault : cudaEventDisableTiming;
    if (options.blocking_sync) {
      flags |= cudaEventBlockingSync;
    }
    if (options.interprocess) {
      // The runtime requires interprocess events to have timing disabled, so a timed one would
      // time nothing: refused here rather than failing at the first elapsed time.
      if constexpr (Timing) {
        throw invalid_argument("umsync: a timed_event cannot be interprocess (CUDA disables timing on interprocess "
                               "events); use umsync::event for an event shared with another process");
      }
      flags |= cudaEventInterprocess;
    }
    cudaEvent_t handle = nullptr;
    check(cudaEventCreateWithFlags(&handle, flags), "cudaEventCreateWithFlags", where);
    handle_ = unique_handle<cudaEvent_t, destroy_event>(handle);
  }

  /// The raw handle; throws usage_error on a moved-from event.
  [[nodiscard]] cudaEvent_t get() const { return handle_.get_or_throw("umsync event"); }

  /// Captures the work queued on `s` so far; a later wait or synchronize waits for it.
  template <stream_handle Stream>
  void record(Stream const& s, std::source_location where = std::source_location::current())
  {
    check(cudaEventRecord(get(), s.get()), "cudaEventRecord", where);
    detail::debug::note_record(get(), s.get());
    // Outside umsync captures (one load) nothing more; during one, ask whether this record was
    // captured, while `s` is known to be alive.
    bool const captured = captures_in_progress().load() > 0 &&
                          stream_capture_status(s.get(), where) != cudaStreamCaptureStatusNone;
    captured_on_ = captured ? s.get() : nullptr;
  }

  /// Blocks the host until the recorded work is done. An event last recorded in a capture that
  /// is still in progress throws capture_error first (it stands for work that has not run, and
  /// the call would invalidate the capture).
  void synchronize(std::source_location where = std::source_location::current()) const
  {
    refuse_if_captured("cudaEventSynchronize", where);
    check(cudaEventSynchronize(get()), "cudaEventSynchronize", where);
    detail::debug::note_host_waited_for_event(get());
  }

  /// True when the recorded work is done (or nothing was recorded); never blocks. Refused like
  /// synchronize() for an event recorded in a capture in progress. True orders what the host
  /// issues afterwards after the recorded work, as synchronize() does.
  [[nodiscard]] bool ready(std::source_location where = std::source_location::current()) const
  {
    refuse_if_captured("cudaEventQuery", where);
    cudaError_t const status = cudaEventQuery(get());
    if (status == cudaErrorNotReady) {
      static_cast<void>(cudaGetLastError());
      return false;
    }
    check(status, "cudaEventQuery", where);
    detail::debug::note_host_waited_for_event(get());
    return true;
  }

 private:
  /// Throws capture_error when the last record was captured and its stream still captures. Its
  /// stream is asked only while umsync captures are in progress: one that ended cannot be
  /// invalidated any more (and its stream may be gone).
  void refuse_if_captured(char const* operation, std::source_location const& where) const
  {
    if (captured_on_ != nullptr && captures_in_progress().load() > 0) [[unlikely]] {
      if (stream_capture_status(captured_on_, where) != cudaStreamCaptureStatusNone) {
        throw capture_error(operation,
                            "the event was last recorded on a stream that is being captured into a "
                            "graph: it stands for captured work, which has not run (at ",
                            where, ")");
      }
    }
  }

  unique_handle<cudaEvent_t, destroy_event> handle_;
  /// The stream of the last record when that record was made in a capture; else null.
  cudaStream_t captured_on_ = nullptr;
};

}  // namespace detail

/// An event for ordering only (timing disabled).
class event : public detail::basic_event<false> {
 public:
  using detail::basic_event<false>::basic_event;
};

UMSYNC_NAMESPACE_END
