// umsync/device.hpp: which devices exist, and what each can do.
//
// The rest of umsync asks `capabilities(device)` before it relies on a feature (concurrent
// managed access for batch prefetch, memory pools, 64-bit stream memory operations), so a
// missing feature is a clear error instead of a failing call deep inside a step.
//
// It also holds umsync's whole-device host synchronization, synchronize_device(): the one way
// the UMSYNC_DEBUG ordering checker learns that every stream of the device has finished (a raw
// cudaDeviceSynchronize() is invisible to it, docs/sync.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/driver_entry.hpp>
#include <umsync/detail/heap_array.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/error.hpp>

#include <cstddef>

UMSYNC_NAMESPACE_BEGIN

/// True for the statuses that mean "this machine has no usable CUDA device": no device, no
/// driver (a machine without a GPU answers cudaErrorInsufficientDriver), or only the
/// toolkit's stub driver library.
[[nodiscard]] constexpr bool is_no_device_error(cudaError_t status) noexcept
{
  return status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver || status == cudaErrorStubLibrary;
}

/// What a look for devices found.
struct device_probe {
  int count = 0;                     ///< usable devices
  cudaError_t status = cudaSuccess;  ///< why count is 0, if it is
  [[nodiscard]] bool usable() const noexcept { return count > 0; }
  /// One line for logs and skipped tests: "2 CUDA devices" or the reason there are none. A
  /// std::string: needs <string> where it is called (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] auto reason() const
  {
    if (usable()) {
      return detail::returned_string<String>(count, " CUDA device", count == 1 ? "" : "s");
    }
    return detail::returned_string<String>("no usable CUDA device (cudaGetDeviceCount: ", cudaGetErrorName(status),
                                           ")");
  }
};

/// Counts usable devices without throwing for "no device"; any other failure throws.
[[nodiscard]] inline device_probe probe_devices(std::source_location where = std::source_location::current())
{
  int count = 0;
  cudaError_t const status = cudaGetDeviceCount(&count);
  if (is_no_device_error(status)) {
    static_cast<void>(cudaGetLastError());
    return device_probe{0, status};
  }
  check(status, "cudaGetDeviceCount", where);
  return device_probe{count, count > 0 ? cudaSuccess : cudaErrorNoDevice};
}

/// A snapshot of one device's attributes that umsync relies on. Read with
/// cudaDeviceGetAttribute (CUDA 13 removed several cudaDeviceProp fields).
struct device_capabilities {
  int ordinal = -1;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessor_count = 0;
  int l2_cache_bytes = 0;
  int max_threads_per_block = 0;
  std::size_t total_memory_bytes = 0;
  bool managed_memory = false;             ///< cudaMallocManaged works
  bool concurrent_managed_access = false;  ///< host and device may touch managed memory at once
  bool pageable_memory_access = false;     ///< the device reads pageable host memory coherently
  bool host_native_atomics = false;        ///< host-device link has native atomics
  bool memory_pools = false;               ///< cudaMallocAsync and cudaMemPool*
  bool stream_mem_ops_64bit = false;       ///< cuStreamWaitValue64 / cuStreamWriteValue64

  /// Compute capability as 10 * major + minor (90 for Hopper).
  [[nodiscard]] int compute_capability() const noexcept
  {
    return 10 * compute_capability_major + compute_capability_minor;
  }
};

namespace detail {

inline int read_attribute(cudaDeviceAttr attribute, int ordinal, char const* name, std::source_location const& where)
{
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attribute, ordinal), compose<96>("cudaDeviceGetAttribute(", name, ")"), where);
  return value;
}

inline device_capabilities query_capabilities(int ordinal, std::source_location const& where)
{
  device_capabilities caps;
  caps.ordinal = ordinal;
  auto read = [&](cudaDeviceAttr attribute, char const* name) {
    return read_attribute(attribute, ordinal, name, where);
  };
  caps.compute_capability_major = read(cudaDevAttrComputeCapabilityMajor, "cudaDevAttrComputeCapabilityMajor");
  caps.compute_capability_minor = read(cudaDevAttrComputeCapabilityMinor, "cudaDevAttrComputeCapabilityMinor");
  caps.multiprocessor_count = read(cudaDevAttrMultiProcessorCount, "cudaDevAttrMultiProcessorCount");
  caps.l2_cache_bytes = read(cudaDevAttrL2CacheSize, "cudaDevAttrL2CacheSize");
  caps.max_threads_per_block = read(cudaDevAttrMaxThreadsPerBlock, "cudaDevAttrMaxThreadsPerBlock");
  caps.managed_memory = read(cudaDevAttrManagedMemory, "cudaDevAttrManagedMemory") != 0;
  caps.concurrent_managed_access = read(cudaDevAttrConcurrentManagedAccess, "cudaDevAttrConcurrentManagedAccess") != 0;
  caps.pageable_memory_access = read(cudaDevAttrPageableMemoryAccess, "cudaDevAttrPageableMemoryAccess") != 0;
  caps.host_native_atomics = read(cudaDevAttrHostNativeAtomicSupported, "cudaDevAttrHostNativeAtomicSupported") != 0;
  caps.memory_pools = read(cudaDevAttrMemoryPoolsSupported, "cudaDevAttrMemoryPoolsSupported") != 0;

  // The runtime has no attribute for 64-bit stream memory operations: ask the driver.
  using device_get_fn = driver_result (*)(driver_device*, int);
  using attribute_fn = driver_result (*)(int*, driver_device_attribute, driver_device);
  static auto const device_get = driver_function<device_get_fn>("cuDeviceGet", where);
  static auto const get_attribute = driver_function<attribute_fn>("cuDeviceGetAttribute", where);
  driver_device device{};
  check_driver(device_get(&device, ordinal), "cuDeviceGet", where);
  int mem_ops_64 = 0;
  check_driver(get_attribute(&mem_ops_64, driver_device_attribute::can_use_64_bit_stream_mem_ops, device),
               "cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS)", where);
  caps.stream_mem_ops_64bit = mem_ops_64 != 0;

  std::size_t total = 0;
  using total_mem_fn = driver_result (*)(std::size_t*, driver_device);
  static auto const total_mem = driver_function<total_mem_fn>("cuDeviceTotalMem", where);
  check_driver(total_mem(&total, device), "cuDeviceTotalMem", where);
  caps.total_memory_bytes = total;
  return caps;
}

}  // namespace detail

/// The capabilities of device `ordinal`, read once and cached for the life of the program.
/// An invalid ordinal throws cuda_error (cudaErrorInvalidDevice) naming the caller's line.
[[nodiscard]] inline device_capabilities const& capabilities(
    int ordinal, std::source_location where = std::source_location::current())
{
  // Every device's, read at the first call. A function-local static is initialised once and
  // thread-safely, and again at the next call when reading failed: no <mutex> or <map>, which
  // cost more to compile than this whole header otherwise (docs/compile-cost.md).
  static detail::heap_array<device_capabilities> const all = [&] {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", where);
    detail::heap_array<device_capabilities> read;
    for (int device = 0; device < count; ++device) {
      read.push_back(detail::query_capabilities(device, where));
    }
    return read;
  }();
  if (ordinal < 0 || static_cast<std::size_t>(ordinal) >= all.size()) {
    throw cuda_error(cudaErrorInvalidDevice,
                     detail::compose<96>("capabilities(", ordinal, ") of ", all.size(), " devices"), where);
  }
  return all[static_cast<std::size_t>(ordinal)];
}

/// The calling thread's current device.
[[nodiscard]] inline int current_device(std::source_location where = std::source_location::current())
{
  int ordinal = -1;
  check(cudaGetDevice(&ordinal), "cudaGetDevice", where);
  return ordinal;
}

/// Blocks the host until all work queued on the current device, on every stream, is done
/// (cudaDeviceSynchronize). In UMSYNC_DEBUG builds the ordering checker learns it: what the host
/// issues afterwards, on any stream, streams created later included, is ordered after that work.
/// Refused with capture_error while a umsync capture is in progress (the call would wait for
/// captured streams and invalidate the capture).
inline void synchronize_device(std::source_location where = std::source_location::current())
{
  if (detail::captures_in_progress().load() > 0) [[unlikely]] {
    throw capture_error("cudaDeviceSynchronize", "it waits for every stream of the device, a capturing one too (at ",
                        where, ")");
  }
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice", where);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize", where);
  detail::debug::note_device_synchronized(device);
}

UMSYNC_NAMESPACE_END
