// umsync/detail/driver_entry.hpp: driver API functions reached through the runtime.
//
// umsync asks the runtime for driver entry points instead of linking libcuda, so programs
// built with umsync start on machines without a driver (CI) and report "no device" there
// instead of failing to load.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cuda.h>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

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

/// Throws cuda_error for a failed driver call, named like the runtime's failures.
inline void check_driver(CUresult status, text_view call, std::source_location where = std::source_location::current())
{
  if (status != CUDA_SUCCESS) [[unlikely]] {
    // Driver and runtime codes agree for the errors these calls return (invalid value,
    // invalid device, not initialized, ...), which keeps one exception type for both.
    throw cuda_error(static_cast<cudaError_t>(status), call, where);
  }
}

}  // namespace detail
UMSYNC_NAMESPACE_END
