// Tests of umsync/detail/driver_entry.hpp: its driver types are <cuda.h>'s, as the driver's ABI
// has them, and check_driver throws cuda_error for a failed driver call.
#include <umsync/detail/driver_entry.hpp>

#include <cuda.h>
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <type_traits>

namespace detail = umsync::detail;

// The header leaves <cuda.h> out; what it declares instead must be what <cuda.h> declares.
static_assert(std::is_same_v<std::underlying_type_t<CUresult>, std::underlying_type_t<detail::driver_result>>);
static_assert(static_cast<unsigned>(CUDA_SUCCESS) == static_cast<unsigned>(detail::driver_result::success));
static_assert(std::is_same_v<CUdevice, detail::driver_device>);
static_assert(std::is_same_v<CUdeviceptr, detail::driver_pointer>);
static_assert(std::is_same_v<CUstream, cudaStream_t>);
static_assert(std::is_same_v<std::underlying_type_t<CUdevice_attribute>,
                             std::underlying_type_t<detail::driver_device_attribute>>);
static_assert(static_cast<unsigned>(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS) ==
              static_cast<unsigned>(detail::driver_device_attribute::can_use_64_bit_stream_mem_ops));

TEST_CASE("check_driver passes success and throws cuda_error with the driver's code otherwise")
{
  CHECK_NOTHROW(detail::check_driver(CUDA_SUCCESS, "cuNothing"));
  CHECK_NOTHROW(detail::check_driver(detail::driver_result::success, "cuNothing"));
  // Codes whose runtime and driver values agree (the header's comment): invalid value, out of
  // memory, not initialized, invalid device.
  CUresult const failures[] = {CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_NOT_INITIALIZED,
                               CUDA_ERROR_INVALID_DEVICE};
  std::mt19937 random(std::random_device{}());
  CUresult const failure = failures[std::uniform_int_distribution<int>(0, 3)(random)];
  try {
    detail::check_driver(failure, "cuSomething(7)");
    FAIL("check_driver did not throw");
  } catch (umsync::cuda_error const& e) {
    CHECK(static_cast<int>(e.code()) == static_cast<int>(failure));
    CHECK(std::string(e.call()) == "cuSomething(7)");
    CHECK(std::string(e.what()).find("cuSomething(7) failed with ") != std::string::npos);
  }
  // The same through umsync's own result type, as device.hpp and fill.hpp call it.
  CHECK_THROWS_AS(detail::check_driver(static_cast<detail::driver_result>(failure), "cuOther"), umsync::cuda_error);
}
