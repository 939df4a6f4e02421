// umsync/detail/driver_entry.hpp: driver API functions reached through the runtime.
//
// umsync asks the runtime for driver entry points instead of linking libcuda, so programs
// built with umsync start on machines without a driver (CI) and report "no device" there
// instead of failing to load.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

// The driver API's types as its ABI has them (<cuda.h>'s definitions, checked against it by
// test/detail/driver_entry_host_test.cpp), so that the headers calling the driver through the
// runtime do not include <cuda.h>, about 4k preprocessed lines (docs/compile-cost.md).
/// CUresult: a C enumeration of unsigned int; 0 is CUDA_SUCCESS.
enum class driver_result : unsigned { success = 0 };
/// CUdevice: a device ordinal.
using driver_device = int;
/// CUdeviceptr: a device address.
using driver_pointer = unsigned long long;
/// CUdevice_attribute: a C enumeration of unsigned int.
enum class driver_device_attribute : unsigned {
  can_use_64_bit_stream_mem_ops = 122,  ///< CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
};

/// Looks up driver function `symbol` with the signature `Fn`, as of CUDA 12.0's ABI.
/// Throws cuda_error when the runtime or the driver cannot provide it.
template <class Fn>
Fn driver_function(char const* symbol, std::source_location where = std::source_location::current())
{
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
  check(cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found),
        compose<128>("cudaGetDriverEntryPointByVersion(", symbol, ")"), where);
  if (found != cudaDriverEntryPointSuccess || address == nullptr) {
    throw cuda_error(cudaErrorSymbolNotFound, compose<128>("driver entry point ", symbol), where);
  }
  return reinterpret_cast<Fn>(address);
}

/// Throws cuda_error for a failed driver call (its CUresult, or driver_result), named like the
/// runtime's failures.
template <class Result>
  requires std::is_enum_v<Result>
void check_driver(Result status, text_view call, std::source_location where = std::source_location::current())
{
  if (static_cast<unsigned>(status) != 0) [[unlikely]] {
    // Driver and runtime codes agree for the errors these calls return (invalid value,
    // invalid device, not initialized, ...), which keeps one exception type for both.
    throw cuda_error(static_cast<cudaError_t>(status), call, where);
  }
}

}  // namespace detail
UMSYNC_NAMESPACE_END
