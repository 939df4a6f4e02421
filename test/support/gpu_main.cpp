// Entry point of the GPU tests. Without a usable device the whole executable reports itself
// skipped (exit 77, which ctest shows as "Skipped") and prints why; with UMSYNC_REQUIRE_GPU=1
// the same condition is a failure, so a GPU run cannot pass by skipping.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <umsync/device.hpp>
#include <umsync/error.hpp>

#include <cstdio>
#include <cstdlib>  // getenv, setenv
#include <string_view>

namespace {

// Brings the context to its steady state before any test takes a memory baseline: modules
// load eagerly (lazy loading would allocate at a test's first launch) and a stream and an
// event have been made once.
void warm_up()
{
  UMSYNC_CUDA_CHECK(cudaFree(nullptr));
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  UMSYNC_CUDA_CHECK(cudaEventCreate(&event));
  UMSYNC_CUDA_CHECK(cudaEventRecord(event, stream));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(event));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(stream));
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace

int main(int argc, char** argv)
{
  // Before the first CUDA call; a value the user set wins.
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  umsync::device_probe const probe = umsync::probe_devices();
  if (!probe.usable()) {
    char const* require = std::getenv("UMSYNC_REQUIRE_GPU");
    if (require != nullptr && std::string_view(require) == "1") {
      std::fprintf(stderr, "FAILED: UMSYNC_REQUIRE_GPU=1 but %s\n", probe.reason().c_str());
      return 1;
    }
    std::printf("SKIPPED: %s (set UMSYNC_REQUIRE_GPU=1 to make this a failure)\n", probe.reason().c_str());
    return 77;
  }
  warm_up();
  doctest::Context context(argc, argv);
  return context.run();
}
