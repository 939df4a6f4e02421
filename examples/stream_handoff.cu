// Two streams, one event edge: a producer fills a buffer on one stream and a consumer on
// another stream reads it only after the edge. Prints what it checked.
#include <umsync/umsync.hpp>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

struct producer {};
struct consumer {};

__global__ void produce(std::uint32_t const* in, std::uint32_t* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] * 2654435761U;
  }
}

__global__ void consume(std::uint32_t const* in, std::uint32_t* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] + 7U;
  }
}

}  // namespace

int main()
{
  umsync::device_probe const probe = umsync::probe_devices();
  if (!probe.usable()) {
    std::fprintf(stderr, "stream_handoff: %s; this example needs a GPU\n", probe.reason().c_str());
    return 1;
  }
  try {
    std::size_t const n = std::size_t{1} << 24;
    std::mt19937 rng{std::random_device{}()};
    std::vector<std::uint32_t> input(n);
    for (auto& x : input) {
      x = static_cast<std::uint32_t>(rng());
    }
    std::uint32_t* d_in = nullptr;
    std::uint32_t* d_mid = nullptr;
    std::uint32_t* d_out = nullptr;
    UMSYNC_CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMalloc(&d_mid, n * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMemcpy(d_in, input.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    UMSYNC_CUDA_CHECK(cudaMemset(d_out, 0xFF, n * sizeof(std::uint32_t)));

    umsync::stream<producer> ps;
    umsync::stream<consumer> cs;
    umsync::event produced;
    umsync::timed_event start;
    umsync::timed_event stop;

    start.record(ps);
    produce<<<528, 256, 0, ps.view()>>>(d_in, d_mid, n);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
    produced.record(ps);
    cs.wait(produced);  // the edge: without it the consumer may read d_mid early
    consume<<<528, 256, 0, cs.view()>>>(d_mid, d_out, n);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
    stop.record(cs);
    stop.synchronize();

    std::vector<std::uint32_t> out(n);
    UMSYNC_CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += out[i] != input[i] * 2654435761U + 7U ? 1 : 0;
    }
    UMSYNC_CUDA_CHECK(cudaFree(d_in));
    UMSYNC_CUDA_CHECK(cudaFree(d_mid));
    UMSYNC_CUDA_CHECK(cudaFree(d_out));
    std::printf("stream_handoff: %zu elements across two streams in %.3f ms, %zu wrong\n", n,
                static_cast<double>((stop - start).count()), wrong);
    return wrong == 0 ? 0 : 1;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "stream_handoff: %s\n", e.what());
    return 1;
  }
}
