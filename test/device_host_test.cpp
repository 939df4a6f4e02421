// Host-side tests of umsync/device.hpp: they run with or without a GPU.
#include <doctest/doctest.h>
#include <umsync/device.hpp>

#include <string>

TEST_CASE("no-device statuses are the ones a machine without a GPU or driver answers")
{
  CHECK(umsync::is_no_device_error(cudaErrorNoDevice));
  CHECK(umsync::is_no_device_error(cudaErrorInsufficientDriver));
  CHECK(umsync::is_no_device_error(cudaErrorStubLibrary));
  CHECK_FALSE(umsync::is_no_device_error(cudaSuccess));
  CHECK_FALSE(umsync::is_no_device_error(cudaErrorInvalidDevice));
}

TEST_CASE("probe_devices answers on any machine and explains a missing device")
{
  umsync::device_probe const probe = umsync::probe_devices();
  MESSAGE("probe: " << probe.reason());
  if (probe.usable()) {
    CHECK(probe.status == cudaSuccess);
    CHECK(probe.reason().find("CUDA device") != std::string::npos);
  } else {
    CHECK(probe.count == 0);
    CHECK(umsync::is_no_device_error(probe.status));
    CHECK(probe.reason().find(cudaGetErrorName(probe.status)) != std::string::npos);
  }
}

TEST_CASE("capabilities of a machine without a device is a cuda_error, not a crash")
{
  if (umsync::probe_devices().usable()) {
    return;  // covered by the GPU tests
  }
  CHECK_THROWS_AS(static_cast<void>(umsync::capabilities(0)), umsync::cuda_error);
}
