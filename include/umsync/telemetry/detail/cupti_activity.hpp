// umsync/telemetry/detail/cupti_activity.hpp: the process-wide CUPTI activity plumbing behind
// telemetry::um_scope (reserved: use um_scope). One concern: getting unified-memory counter
// records out of CUPTI into the active scope's counters.
//
// What CUPTI does, measured on the H200 (driver 580.159, CUPTI 13.0) with
// two probe programs (docs/unified_memory.md, "What CUPTI reports" and the first-scope symptom):
// - Configuring the counter kinds while the record kind is enabled fails
//   (CUPTI_ERROR_INVALID_OPERATION); with the record kind disabled no record is made.
// - After a device synchronize, one forced flush hands over every record of the work before
//   it; a second flush 300 ms later found none, in every phase of both probes.
// - The first migrations after the record kind is first enabled in a process can produce no
//   record at all: registering the callbacks, enabling, and running a kernel that faulted in
//   64 MiB recorded nothing, while the same kernel on other memory 200 ms later recorded
//   64 MiB and about 100 GPU faults. An enable and disable with no migration in between did
//   not help. Moving 2 MiB by prefetch while enabled, and waiting until a record of it
//   arrives, did: the first round's record arrived and every later phase counted exactly.
//   So the first scope of a process runs that handshake (about 50 ms) before it counts.
#pragma once

#include <umsync/config.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/telemetry/cupti_error.hpp>
#include <umsync/telemetry/um_counters.hpp>

#include <cuda_runtime.h>
#include <cupti.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <new>
#include <source_location>
#include <thread>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry::detail {

/// Process-wide: which counters receive records (the active scope's), and what has been set
/// up once. One instance for the whole program (inline function).
struct activity_state {
  std::mutex mutex;
  um_counters* sink = nullptr;  ///< where records go; null: they are dropped
  bool scope_open = false;
  bool callbacks_registered = false;
  bool delivering = false;  ///< the first-delivery handshake has seen a record
};

inline activity_state& state() noexcept
{
  static activity_state instance;
  return instance;
}

/// Points the callbacks at `counters` (null: drop records).
inline void set_sink(um_counters* counters) noexcept
{
  std::lock_guard lock(state().mutex);
  state().sink = counters;
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

inline void register_callbacks_once(std::source_location const& where)
{
  if (state().callbacks_registered) {
    return;
  }
  check_cupti(cuptiActivityRegisterCallbacks(&on_buffer_requested, &on_buffer_completed),
              "cuptiActivityRegisterCallbacks", where);
  state().callbacks_registered = true;
}

inline void flush(std::source_location const& where)
{
  check_cupti(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll", where);
}

inline void enable_records(std::source_location const& where)
{
  check_cupti(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
              "cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
}

inline void disable_records(std::source_location const& where)
{
  check_cupti(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER),
              "cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER)", where);
}

/// Every counter kind um_counters understands, enabled. Only while the record kind is off.
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

/// The handshake (see the top of this file): with the record kind enabled, moves a 2 MiB
/// managed buffer between the current device and the host by prefetch until a record of it
/// arrives, then disables the kind and drops those records. Once per process; needs concurrent
/// managed access (prefetch to a device); without it there is nothing to move it with and the
/// first scope is not guarded (documented in um_scope.hpp). Throws counters_unavailable when no
/// record arrives within `timeout`. Called with the record kind disabled and no scope's sink set.
inline void await_first_delivery(std::source_location const& where,
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(2000))
{
  if (state().delivering) {
    return;
  }
  int const device = current_device();
  if (!capabilities(device).concurrent_managed_access) {
    return;
  }
  constexpr std::size_t probe_bytes = std::size_t{2} << 20;
  void* probe = nullptr;
  check(cudaMallocManaged(&probe, probe_bytes), "cudaMallocManaged (telemetry handshake)", where);
  um_counters seen;
  bool enabled = false;
  try {
    std::memset(probe, 0x5a, probe_bytes);  // populate on the host
    configure_counters(where);
    set_sink(&seen);
    enable_records(where);
    enabled = true;
    auto const deadline = std::chrono::steady_clock::now() + timeout;
    for (int round = 0;; ++round) {
      cudaMemLocation const to = round % 2 == 0 ? cudaMemLocation{cudaMemLocationTypeDevice, device}
                                                : cudaMemLocation{cudaMemLocationTypeHost, 0};
      check(cudaMemPrefetchAsync(probe, probe_bytes, to, 0, nullptr), "cudaMemPrefetchAsync (telemetry handshake)",
            where);
      check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", where);
      flush(where);
      bool arrived = false;
      {
        std::lock_guard lock(state().mutex);
        arrived = seen.htod_bytes + seen.dtoh_bytes > 0;
      }
      if (arrived) {
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        throw counters_unavailable(timeout, where);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    enabled = false;
    disable_records(where);
    flush(where);
    set_sink(nullptr);
  } catch (...) {
    if (enabled) {
      static_cast<void>(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));  // best effort
    }
    set_sink(nullptr);
    umsync::detail::report_in_destructor(cudaFree(probe), "cudaFree (telemetry handshake)");
    throw;
  }
  check(cudaFree(probe), "cudaFree (telemetry handshake)", where);
  state().delivering = true;
}

}  // namespace telemetry::detail

UMSYNC_NAMESPACE_END
