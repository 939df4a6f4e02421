// umsync/telemetry/um_scope.hpp: count the unified-memory migrations and faults of a stretch
// of code with CUPTI's activity API.
//
//   umsync::telemetry::um_scope scope;            // device synchronized, collection on
//   step();                                       // any code, any stream, any thread
//   umsync::telemetry::um_counters c = scope.stop();   // synchronized, flushed, collection off
//   auto c2 = umsync::telemetry::measure_um([&] { step(); });   // the same in one call
//
// How (measured on the H200; details in telemetry/detail/cupti_activity.hpp):
// - The counter kinds are configured and CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER enabled
//   when the scope opens, and disabled when it stops.
// - Opening synchronizes every device, so work queued before the scope is not counted;
//   stopping synchronizes every device, then a forced flush hands over every record.
// - The first scope of a process first waits (about 50 ms) until CUPTI delivers a record of a
//   2 MiB prefetch it makes itself: without that, the first migrations after the first enable
//   went unrecorded, so a fault-driven step read zero. It needs concurrent managed access;
//   without it the first scope may undercount. No record within 2 s: counters_unavailable.
// - CUPTI's activity buffers and callbacks are process-wide, so one scope at a time: a second
//   one throws scope_conflict. umsync registers the activity buffer callbacks once per process;
//   another CUPTI activity client in the same process (a profiler, a tool) does not mix with it.
//
// Errors: CUDA calls throw umsync::cuda_error, CUPTI calls telemetry::cupti_error naming the
// call. The destructor stops a running scope and never throws: failures there go to stderr
// (CUDA failures to umsync's destructor error handler).
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/telemetry/cupti_error.hpp>
#include <umsync/telemetry/detail/cupti_activity.hpp>
#include <umsync/telemetry/um_counters.hpp>

#include <cupti.h>

#include <cstddef>
#include <exception>
#include <mutex>
#include <source_location>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry {

/// Collects CUPTI unified-memory counters from construction to stop() (or destruction).
/// Neither copyable nor movable: CUPTI's callbacks write into this object.
class um_scope {
 public:
  explicit um_scope(std::source_location where = std::source_location::current())
  {
    auto& s = detail::state();
    {
      std::lock_guard lock(s.mutex);
      if (s.scope_open) {
        throw scope_conflict(where);
      }
      s.scope_open = true;
    }
    try {
      // CUPTI wants the driver initialized before the counters are configured.
      check(cudaFree(nullptr), "cudaFree(nullptr) (CUDA initialization)", where);
      detail::synchronize_all_devices(where);
      detail::register_callbacks_once(where);
      detail::flush(where);  // records of earlier activity go nowhere (no sink yet)
      detail::await_first_delivery(where);
      std::size_t dropped = 0;  // reset CUPTI's dropped count: only this scope's drops matter
      detail::check_cupti(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords",
                          where);
      detail::configure_counters(where);
      detail::set_sink(&counters_);
      detail::enable_records(where);
    } catch (...) {
      std::lock_guard lock(s.mutex);
      s.sink = nullptr;
      s.scope_open = false;
      throw;
    }
    running_ = true;
  }

  um_scope(um_scope const&) = delete;
  um_scope& operator=(um_scope const&) = delete;

  ~um_scope()
  {
    if (!running_) {
      return;
    }
    try {
      static_cast<void>(stop());
    } catch (error const& failure) {
      umsync::detail::report_in_destructor(failure);
    } catch (...) {
      // Not umsync's (building a message ran out of memory): the handler still hears of it.
      umsync::detail::report_in_destructor(cudaErrorUnknown,
                                           "stopping a telemetry scope (a failure that is not umsync's)");
    }
  }

  /// Ends collection and returns the counters: synchronizes every device, flushes CUPTI's
  /// buffers (forced), disables the record kind. Later calls return the same counters.
  /// Collection is off and the scope slot free afterwards even when a call here throws.
  um_counters const& stop(std::source_location where = std::source_location::current())
  {
    if (!running_) {
      return counters_;
    }
    running_ = false;
    auto& s = detail::state();
    bool enabled = true;
    try {
      detail::synchronize_all_devices(where);
      detail::flush(where);
      enabled = false;
      detail::disable_records(where);
      detail::flush(where);  // anything recorded between the flush and the disable
      std::size_t dropped = 0;
      detail::check_cupti(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords",
                          where);
      std::lock_guard lock(s.mutex);
      counters_.dropped_records += dropped;
      s.sink = nullptr;
      s.scope_open = false;
    } catch (...) {
      if (enabled) {
        static_cast<void>(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));  // best effort
      }
      std::lock_guard lock(s.mutex);
      s.sink = nullptr;
      s.scope_open = false;
      throw;
    }
    return counters_;
  }

  /// True until stop().
  [[nodiscard]] bool running() const noexcept { return running_; }

  /// The counters so far; complete only after stop() (records arrive in CUPTI's buffers).
  [[nodiscard]] um_counters counters() const
  {
    std::lock_guard lock(detail::state().mutex);
    return counters_;
  }

 private:
  um_counters counters_{};
  bool running_ = false;
};

/// Runs `step` inside a um_scope and returns what it migrated and faulted.
template <class Step>
[[nodiscard]] um_counters measure_um(Step&& step, std::source_location where = std::source_location::current())
{
  um_scope scope(where);
  std::forward<Step>(step)();
  return scope.stop(where);
}

}  // namespace telemetry

UMSYNC_NAMESPACE_END
