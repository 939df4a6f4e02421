// Family 0: the ceilings every other family reports against, measured in the same run:
// device-to-device copy, pinned host-to-device and device-to-host copies.
#include "support/timing.cuh"

#include <cstddef>
#include <cstring>

namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

void set_bandwidth(benchmark::State& state, double bytes_moved, double seconds)
{
  state.counters["GB/s"] = seconds > 0 ? bytes_moved / seconds * 1e-9 : 0.0;
}

// Counts bytes read plus bytes written, as the baselines file does.
void ceiling_device_to_device(benchmark::State& state)
{
  std::size_t const bytes = static_cast<std::size_t>(state.range(0)) * mib;
  void* src = nullptr;
  void* dst = nullptr;
  cudaStream_t stream = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&src, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&dst, bytes));
  UMSYNC_CUDA_CHECK(cudaMemset(src, 0x5A, bytes));
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  umsync_bench::l2_flusher l2;
  double total = 0;
  for (auto _ : state) {
    l2.flush(stream);
    double const seconds = umsync_bench::time_on_device(stream, [&](cudaStream_t s) {
      UMSYNC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
    });
    state.SetIterationTime(seconds);
    total += seconds;
  }
  set_bandwidth(state, 2.0 * static_cast<double>(bytes) * static_cast<double>(state.iterations()), total);
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(stream));
  UMSYNC_CUDA_CHECK(cudaFree(src));
  UMSYNC_CUDA_CHECK(cudaFree(dst));
}

template <cudaMemcpyKind Kind>
void ceiling_pinned_copy(benchmark::State& state)
{
  std::size_t const bytes = static_cast<std::size_t>(state.range(0)) * mib;
  void* host = nullptr;
  void* device = nullptr;
  cudaStream_t stream = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocHost(&host, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&device, bytes));
  UMSYNC_CUDA_CHECK(cudaMemset(device, 0x5A, bytes));
  std::memset(host, 0xA5, bytes);
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  double total = 0;
  for (auto _ : state) {
    double const seconds = umsync_bench::time_on_device(stream, [&](cudaStream_t s) {
      if constexpr (Kind == cudaMemcpyHostToDevice) {
        UMSYNC_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, Kind, s));
      } else {
        UMSYNC_CUDA_CHECK(cudaMemcpyAsync(host, device, bytes, Kind, s));
      }
    });
    state.SetIterationTime(seconds);
    total += seconds;
  }
  set_bandwidth(state, static_cast<double>(bytes) * static_cast<double>(state.iterations()), total);
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(stream));
  UMSYNC_CUDA_CHECK(cudaFreeHost(host));
  UMSYNC_CUDA_CHECK(cudaFree(device));
}

}  // namespace

BENCHMARK(ceiling_device_to_device)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(ceiling_pinned_copy<cudaMemcpyHostToDevice>)
    ->Name("ceiling_pinned_host_to_device")
    ->Arg(256)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(ceiling_pinned_copy<cudaMemcpyDeviceToHost>)
    ->Name("ceiling_pinned_device_to_host")
    ->Arg(256)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
