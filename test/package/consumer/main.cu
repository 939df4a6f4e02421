// A consumer of umsync: includes the umbrella header from a .cu file, needs C++20.
#include <umsync/umsync.hpp>

#include <concepts>
#include <cstdio>
#include <string>

static_assert(__cplusplus >= 202002L, "the umsync target must give C++20 to nvcc");
static_assert(!umsync::debug_build, "umsync::umsync alone must not turn on UMSYNC_DEBUG");

struct compute {};

__global__ void touch(int* value) { *value = 1; }

void run_on_device()
{
  umsync::stream<compute> s;
  int* value = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocAsync(&value, sizeof(int), s.view()));
  touch<<<1, 1, 0, s.view()>>>(value);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  UMSYNC_CUDA_CHECK(cudaFreeAsync(value, s.view()));
  s.synchronize();
}

int main()
{
  static_assert(umsync::stream_handle<umsync::stream<compute>>);
  umsync::device_probe const probe = umsync::probe_devices();
  std::printf("umsync %d consumer: %s\n", UMSYNC_VERSION, probe.reason().c_str());
  if (probe.usable()) {
    run_on_device();
  }
  return 0;
}
