// GPU tests of umsync/device.hpp.
#include "support/gpu_test.hpp"

#include <umsync/device.hpp>

#include <source_location>

TEST_CASE("capabilities match what the runtime reports")
{
  umsync::device_capabilities const& caps = umsync::capabilities(0);
  cudaDeviceProp props{};
  UMSYNC_CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
  MESSAGE(props.name << ": sm_" << caps.compute_capability() << ", " << caps.multiprocessor_count << " SMs, L2 "
                     << caps.l2_cache_bytes << " B, managed " << caps.managed_memory << ", concurrent managed "
                     << caps.concurrent_managed_access << ", pageable " << caps.pageable_memory_access << ", pools "
                     << caps.memory_pools << ", 64-bit mem ops " << caps.stream_mem_ops_64bit);
  CHECK(caps.ordinal == 0);
  CHECK(caps.compute_capability_major == props.major);
  CHECK(caps.compute_capability_minor == props.minor);
  CHECK(caps.multiprocessor_count == props.multiProcessorCount);
  CHECK(caps.l2_cache_bytes == props.l2CacheSize);
  CHECK(caps.max_threads_per_block == props.maxThreadsPerBlock);
  CHECK(caps.total_memory_bytes == props.totalGlobalMem);
  CHECK(caps.managed_memory == (props.managedMemory != 0));
  CHECK(caps.concurrent_managed_access == (props.concurrentManagedAccess != 0));
  CHECK(caps.pageable_memory_access == (props.pageableMemoryAccess != 0));
}

TEST_CASE("capabilities are read once and cached") { CHECK(&umsync::capabilities(0) == &umsync::capabilities(0)); }

TEST_CASE("an invalid device ordinal throws cuda_error naming the call and the caller's line")
{
  int count = 0;
  UMSYNC_CUDA_CHECK(cudaGetDeviceCount(&count));
  for (int const bad : {count, -1}) {
    unsigned const line = std::source_location::current().line() + 2;
    try {
      static_cast<void>(umsync::capabilities(bad));
      FAIL("no throw for ordinal " << bad);
    } catch (umsync::cuda_error const& e) {
      CHECK(e.code() == cudaErrorInvalidDevice);
      CHECK(std::string(e.call()).find("capabilities(" + std::to_string(bad) + ")") != std::string::npos);
      CHECK(e.where().line() == line);
    }
  }
  // The failure cached nothing and left the valid device usable.
  CHECK(umsync::capabilities(0).multiprocessor_count > 0);
  CHECK_THROWS_AS(static_cast<void>(umsync::capabilities(count)), umsync::cuda_error);
}

TEST_CASE("current_device is the runtime's current device")
{
  UMSYNC_CUDA_CHECK(cudaSetDevice(0));
  CHECK(umsync::current_device() == 0);
}
