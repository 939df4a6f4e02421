// umsync/telemetry/um_scope.hpp: count the unified-memory migrations and faults of a stretch
// of code with CUPTI's activity API.
//
//   umsync::telemetry::um_scope scope;            // device synchronized, collection on
//   step();                                       // any code, any stream, any thread
//   umsync::telemetry::um_counters c = scope.stop();   // synchronized, flushed, collection off
//   auto c2 = umsync::telemetry::measure_um([&] { step(); });   // the same in one call
//
// How (each point measured on the H200 with scripts/probes/cupti_um_probe.cu):
// - The counter kinds are configured (cuptiActivityConfigureUnifiedMemoryCounter) and
//   CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER enabled when the scope opens, and disabled when
//   it stops. Configuring while the kind is enabled fails (CUPTI_ERROR_INVALID_OPERATION), so
//   the scope configures only while it is off; with the kind disabled no record is made.
// - Opening synchronizes every device, so work queued before the scope is not counted;
//   stopping synchronizes every device, then cuptiActivityFlushAll(FLUSH_FORCED) hands over
//   every record: a second flush 200 ms later never found more.
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
#include <umsync/telemetry/um_counters.hpp>

#include <cupti.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <new>
#include <source_location>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry {

namespace detail {

/// Process-wide: which counters receive records (the active scope's), and whether the
/// buffer callbacks are registered. One instance for the whole program (inline function).
struct activity_state {
  std::mutex mutex;
  um_counters* sink = nullptr;  ///< the active scope's counters; null: records are dropped
  bool scope_open = false;
  bool callbacks_registered = false;
  bool primed = false;
};

inline activity_state& state() noexcept
{
  static activity_state instance;
  return instance;
}

// 8 MiB per buffer: the contention workload of the probe made 18,009 records (104 B each)
// in 300 ms and CUPTI dropped none.
inline constexpr std::size_t buffer_bytes = std::size_t{8} << 20;
inline constexpr std::align_val_t buffer_alignment{8};  // CUPTI wants 8-byte aligned buffers

inline void CUPTIAPI on_buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records) noexcept
{
  *buffer = static_cast<std::uint8_t*>(::operator new(buffer_bytes, buffer_alignment, std::nothrow));
  *size = *buffer != nullptr ? buffer_bytes : 0;  // a null buffer makes CUPTI drop records (counted)
  *max_records = 0;                               // as many as fit
}

inline void CUPTIAPI on_buffer_completed(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t,
                                         std::size_t valid_bytes) noexcept
{
  {
    std::lock_guard lock(state().mutex);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid_bytes, &record) == CUPTI_SUCCESS) {
      if (state().sink != nullptr && record->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
        CUpti_ActivityUnifiedMemoryCounter3 copy;  // records in the buffer are packed: copy, do not cast
        std::memcpy(&copy, record, sizeof copy);
        state().sink->add(copy);
      }
    }
  }
  ::operator delete(buffer, buffer_alignment);
}

/// Every counter kind um_counters understands, enabled.
inline void configure_counters(std::source_location const& where)
{
  constexpr std::array kinds{
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING,
      CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP,
  };
  std::array<CUpti_ActivityUnifiedMemoryCounterConfig, kinds.size()> config{};
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    // scope and deviceId are deprecated (CUDA 7.0): records cover the process on all devices.
    config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    config[i].kind = kinds[i];
    config[i].deviceId = 0;
    config[i].enable = 1;
  }
  check_cupti(cuptiActivityConfigureUnifiedMemoryCounter(config.data(), static_cast<std::uint32_t>(config.size())),
              "cuptiActivityConfigureUnifiedMemoryCounter", where);
}

/// cudaDeviceSynchronize on every device, the current device restored.
inline void synchronize_all_devices(std::source_location const& where)
{
  int current = 0;
  int count = 0;
  check(cudaGetDevice(&current), "cudaGetDevice", where);
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", where);
  for (int device = 0; device < count; ++device) {
    check(cudaSetDevice(device), "cudaSetDevice", where);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", where);
  }
  check(cudaSetDevice(current), "cudaSetDevice", where);
}

}  // namespace detail

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
      if (!s.callbacks_registered) {
        detail::check_cupti(cuptiActivityRegisterCallbacks(&detail::on_buffer_requested, &detail::on_buffer_completed),
                            "cuptiActivityRegisterCallbacks", where);
        s.callbacks_registered = true;
      }
      // Records of earlier activity kinds still buffered go nowhere.
      detail::check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
      std::size_t dropped = 0;  // reset CUPTI's dropped count: only this scope's drops matter
      detail::check_cupti(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped), "cuptiActivityGetNumDroppedRecords",
                          where);
      detail::configure_counters(where);
      if (!s.primed) {
        // On the H200 (driver 580.159, CUPTI 13.0) the first enable of the record kind in a
        // process recorded nothing at all: the first measured step read zero migrations and
        // zero faults while the same step measured later read 64 MiB and 26 faults (GPU suite,
        // 2026-12-02). So the first scope enables, drains and disables once before it counts.
        detail::check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
                            "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
        detail::synchronize_all_devices(where);
        detail::check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
        detail::check_cupti(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
                            "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
        detail::check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
        detail::configure_counters(where);
        s.primed = true;
      }
      {
        std::lock_guard lock(s.mutex);
        s.sink = &counters_;
      }
      detail::check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
                          "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
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
    } catch (cuda_error const& failure) {
      umsync::detail::report_in_destructor(failure.code(), failure.call(), failure.where());
    } catch (std::exception const& failure) {
      std::fprintf(stderr, "%s (in a destructor; not thrown)\n", failure.what());
    } catch (...) {
      std::fprintf(stderr, "umsync: unknown failure stopping a telemetry scope (in a destructor; not thrown)\n");
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
      detail::check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
      enabled = false;
      detail::check_cupti(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
                          "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
      // Anything recorded between the flush and the disable.
      detail::check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
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
