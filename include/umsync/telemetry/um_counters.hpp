// umsync/telemetry/um_counters.hpp: what CUPTI's unified-memory records say, summed.
//
//   umsync::telemetry::um_counters c;            // usually filled by um_scope (um_scope.hpp)
//   c.add(record);                               // one CUpti_ActivityUnifiedMemoryCounter3
//   std::cout << c.describe();
//
// Only counters verified on an H200 against known workloads are here
// (a probe program; figures in docs/unified_memory.md). What each record
// kind means, read off the probe and the field comments of cupti_activity.h:
//
// - BYTES_TRANSFER_HTOD / _DTOH: `value` is the size in bytes of one migration. `flags` is
//   its cause: USER (cudaMemPrefetchAsync and the batch calls: 2 MiB records), COHERENCE
//   (a page fault) or PREFETCH (the driver's speculative migration around a faulting page;
//   not the user's prefetch). A kernel reading 64 MiB of host-resident memory gave 2,760
//   records summing to exactly 64 MiB, half COHERENCE half PREFETCH.
// - CPU_PAGE_FAULT_COUNT: one record per CPU fault the driver serviced. Its `value` is the
//   *program counter* of the faulting host instruction, not a count: summing `value` is what
//   made the first probe's CPU-fault numbers garbage (about 1.8e16 for 192 faults). Counted
//   here as records. `end` is undefined for this kind.
// - GPU_PAGE_FAULT: one record per faulting page range the driver serviced; `value` is the
//   number of fault groups for that page (1 to 24 seen). Both are kept: gpu_page_faults
//   (records) and gpu_fault_groups (sum of value).
// - THRASHING, THROTTLING, REMOTE_MAP: reported on the H200 only under contention (host and
//   kernel writing the same pages at once); counted as records.
//
// BYTES_TRANSFER_DTOD (peer migrations) is not collected: not verifiable on one GPU.
// Migrations with causes EVICTION or ACCESS_COUNTERS (oversubscription, access-counter
// migration) count in the totals only; neither was seen in the verified workloads.
#pragma once

#include <umsync/config.hpp>

#include <cupti_activity.h>

#include <cstdint>
#include <string>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry {

/// Unified-memory activity of a stretch of a program, summed from CUPTI records.
/// Process-wide and for all devices: CUPTI does not attribute UM records to a stream.
struct um_counters {
  std::uint64_t htod_bytes = 0;           ///< all bytes migrated host to device
  std::uint64_t htod_prefetch_bytes = 0;  ///< of which by the program's prefetch calls (cause USER)
  std::uint64_t htod_fault_bytes = 0;     ///< of which by faults and the driver's speculation around them
  std::uint64_t dtoh_bytes = 0;           ///< all bytes migrated device to host
  std::uint64_t dtoh_prefetch_bytes = 0;  ///< of which by the program's prefetch calls
  std::uint64_t dtoh_fault_bytes = 0;     ///< of which by faults and the driver's speculation
  std::uint64_t cpu_page_faults = 0;      ///< CPU faults the driver serviced (records, not `value`)
  std::uint64_t gpu_page_faults = 0;      ///< GPU faulting page ranges the driver serviced (records)
  std::uint64_t gpu_fault_groups = 0;     ///< fault groups behind those (sum of `value`)
  std::uint64_t thrashing_events = 0;     ///< pages the driver found thrashing
  std::uint64_t throttling_events = 0;    ///< times the driver throttled a processor to stop thrashing
  std::uint64_t remote_maps = 0;          ///< pages mapped remotely instead of migrated
  std::uint64_t dropped_records = 0;      ///< records CUPTI dropped: when non-zero, every count is a lower bound

  /// Adds one record. Records of other activity kinds and UM counter kinds not listed
  /// above are ignored.
  constexpr void add(CUpti_ActivityUnifiedMemoryCounter3 const& record) noexcept
  {
    if (record.kind != CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      return;
    }
    switch (record.counterKind) {
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
        add_migration(record, htod_bytes, htod_prefetch_bytes, htod_fault_bytes);
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH:
        add_migration(record, dtoh_bytes, dtoh_prefetch_bytes, dtoh_fault_bytes);
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        ++cpu_page_faults;  // value is the faulting instruction's address
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT:
        ++gpu_page_faults;
        gpu_fault_groups += record.value;
        break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THRASHING: ++thrashing_events; break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_THROTTLING: ++throttling_events; break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_REMOTE_MAP: ++remote_maps; break;
      default: break;
    }
  }

  constexpr um_counters& operator+=(um_counters const& other) noexcept
  {
    htod_bytes += other.htod_bytes;
    htod_prefetch_bytes += other.htod_prefetch_bytes;
    htod_fault_bytes += other.htod_fault_bytes;
    dtoh_bytes += other.dtoh_bytes;
    dtoh_prefetch_bytes += other.dtoh_prefetch_bytes;
    dtoh_fault_bytes += other.dtoh_fault_bytes;
    cpu_page_faults += other.cpu_page_faults;
    gpu_page_faults += other.gpu_page_faults;
    gpu_fault_groups += other.gpu_fault_groups;
    thrashing_events += other.thrashing_events;
    throttling_events += other.throttling_events;
    remote_maps += other.remote_maps;
    dropped_records += other.dropped_records;
    return *this;
  }

  friend constexpr bool operator==(um_counters const&, um_counters const&) = default;

  /// True when no migration, fault or contention was recorded.
  [[nodiscard]] constexpr bool quiet() const noexcept { return *this == um_counters{}; }

  /// Several lines, one per group, for logs and failed gates.
  [[nodiscard]] std::string describe() const
  {
    auto const n = [](std::uint64_t v) { return std::to_string(v); };
    std::string text;
    text += "host to device: " + n(htod_bytes) + " B (prefetch " + n(htod_prefetch_bytes) + " B, on demand " +
            n(htod_fault_bytes) + " B)\n";
    text += "device to host: " + n(dtoh_bytes) + " B (prefetch " + n(dtoh_prefetch_bytes) + " B, on demand " +
            n(dtoh_fault_bytes) + " B)\n";
    text += "page faults: CPU " + n(cpu_page_faults) + ", GPU " + n(gpu_page_faults) + " (" + n(gpu_fault_groups) +
            " fault groups)\n";
    text += "contention: thrashing " + n(thrashing_events) + ", throttling " + n(throttling_events) + ", remote maps " +
            n(remote_maps) + "\n";
    if (dropped_records != 0) {
      text += "CUPTI dropped " + n(dropped_records) + " records: the counts above are lower bounds\n";
    }
    return text;
  }

 private:
  static constexpr void add_migration(CUpti_ActivityUnifiedMemoryCounter3 const& record, std::uint64_t& total,
                                      std::uint64_t& prefetch, std::uint64_t& on_demand) noexcept
  {
    total += record.value;
    switch (record.flags) {
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER: prefetch += record.value; break;
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE:
      case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH: on_demand += record.value; break;
      default: break;  // eviction, access counters, unknown: in the total only
    }
  }
};

}  // namespace telemetry

UMSYNC_NAMESPACE_END
