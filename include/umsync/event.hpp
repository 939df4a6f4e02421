// umsync/event.hpp: owning, move-only CUDA events for ordering.
//
// `event` has timing disabled: cheaper to record and wait on, it is what cross-stream edges
// use. An event that also takes timestamps is timed_event (timed_event.hpp); both share the
// owning handle detail::basic_event.
#pragma once

#include <umsync/config.hpp>
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
      // The runtime requires interprocess events to have timing disabled.
      flags |= cudaEventInterprocess | cudaEventDisableTiming;
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
  }

  /// Blocks the host until the recorded work is done.
  void synchronize(std::source_location where = std::source_location::current()) const
  {
    check(cudaEventSynchronize(get()), "cudaEventSynchronize", where);
    detail::debug::note_host_waited_for_event(get());
  }

  /// True when the recorded work is done (or nothing was recorded); never blocks.
  [[nodiscard]] bool ready(std::source_location where = std::source_location::current()) const
  {
    cudaError_t const status = cudaEventQuery(get());
    if (status == cudaErrorNotReady) {
      static_cast<void>(cudaGetLastError());
      return false;
    }
    check(status, "cudaEventQuery", where);
    return true;
  }

 private:
  unique_handle<cudaEvent_t, destroy_event> handle_;
};

}  // namespace detail

/// An event for ordering only (timing disabled).
class event : public detail::basic_event<false> {
 public:
  using detail::basic_event<false>::basic_event;
};

UMSYNC_NAMESPACE_END
