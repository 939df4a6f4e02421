// A consumer that links umsync::rmm and umsync::debug together: RMM's CCCL first on the include
// path, UMSYNC_DEBUG on, an umsync buffer from an RMM resource. Built by the package test through
// CMake and with the plain nvcc command lines of docs/rmm.md and docs/install.md.
#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/umsync.hpp>

#include <rmm/mr/cuda_async_memory_resource.hpp>

#include <cuda/version>

#include <cstdio>
#include <string>

static_assert(__cplusplus >= 202002L, "the umsync target must give C++20 to nvcc");
static_assert(umsync::debug_build, "umsync::debug with umsync::rmm must define UMSYNC_DEBUG");
static_assert(CCCL_MAJOR_VERSION > 3 || (CCCL_MAJOR_VERSION == 3 && CCCL_MINOR_VERSION >= 5),
              "RMM's CCCL (3.5 or later) must come before the CUDA toolkit's on the include path");

struct compute {};

int main()
{
  umsync::device_probe const probe = umsync::probe_devices();
  std::printf("umsync %d RMM debug consumer: %s\n", UMSYNC_VERSION, probe.reason().c_str());
  if (probe.usable()) {
    umsync::stream<compute> s;
    rmm::mr::cuda_async_memory_resource resource;
    umsync::stream_buffer<float, compute> x(256, s, resource);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size() * sizeof(float), s.view()));
    s.synchronize();
  }
  return 0;
}
