// Entry point of the GPU tests. Without a usable device the whole executable reports itself
// skipped (exit 77, which ctest shows as "Skipped") and prints why; with UMSYNC_REQUIRE_GPU=1
// the same condition is a failure, so a GPU run cannot pass by skipping.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <umsync/device.hpp>
#include <umsync/error.hpp>

#include <cstdio>
#include <cstdlib>  // getenv, setenv
#include <string>
#include <string_view>

namespace {

// Brings the context to its steady state before any test takes a memory baseline: modules
// load eagerly (lazy loading would allocate at a test's first launch) and a stream and an
// event have been made once.
void warm_up()
{
  UMSYNC_CUDA_CHECK(cudaFree(nullptr));
  cudaStream_t stream = nullptr;
  cudaStream_t blocking = nullptr;
  cudaEvent_t event = nullptr;
  int least = 0;
  int greatest = 0;
  UMSYNC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&stream, cudaStreamNonBlocking, greatest));
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithPriority(&blocking, cudaStreamDefault, least));
  UMSYNC_CUDA_CHECK(cudaEventCreate(&event));
  // The first pool allocation, pageable copy and memset set up driver state that stays.
  void* device = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocAsync(&device, 1 << 20, stream));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(device, 0, 1 << 20, stream));
  static unsigned char host[4096];
  UMSYNC_CUDA_CHECK(cudaMemcpyAsync(device, host, sizeof host, cudaMemcpyHostToDevice, stream));
  UMSYNC_CUDA_CHECK(cudaMemcpyAsync(host, device, sizeof host, cudaMemcpyDeviceToHost, stream));
  UMSYNC_CUDA_CHECK(cudaFreeAsync(device, stream));
  UMSYNC_CUDA_CHECK(cudaEventRecord(event, stream));
  UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(blocking, event, 0));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(blocking));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  // Unified memory: the first managed allocation and migration set up driver state (about
  // 126 MiB on the H200) that stays for the life of the process.
  void* managed = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocManaged(&managed, 2 << 20));
  UMSYNC_CUDA_CHECK(cudaMemPrefetchAsync(managed, 2 << 20, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, stream));
  UMSYNC_CUDA_CHECK(cudaMemPrefetchAsync(managed, 2 << 20, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, stream));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  UMSYNC_CUDA_CHECK(cudaFree(managed));
  // Graph memory: the first graph with an allocation node sets up the graph memory pool;
  // its cached memory goes back with cudaDeviceGraphMemTrim.
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t executable = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  void* graph_memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocAsync(&graph_memory, 1 << 20, stream));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(graph_memory, 0, 1 << 20, stream));
  UMSYNC_CUDA_CHECK(cudaFreeAsync(graph_memory, stream));
  UMSYNC_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  UMSYNC_CUDA_CHECK(cudaGraphInstantiate(&executable, graph, 0));
  UMSYNC_CUDA_CHECK(cudaGraphLaunch(executable, stream));
  UMSYNC_CUDA_CHECK(cudaStreamSynchronize(stream));
  UMSYNC_CUDA_CHECK(cudaGraphExecDestroy(executable));
  UMSYNC_CUDA_CHECK(cudaGraphDestroy(graph));
  UMSYNC_CUDA_CHECK(cudaDeviceGraphMemTrim(0));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(event));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(blocking));
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
