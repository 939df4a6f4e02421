// compile-cost: raw.cu's program written with umsync, through the lean includes of the common
// path only (stream, event, stream_buffer, stream_edge, launch): what the compile-cost gate
// (test/scripts/compile_cost_gate_test.py) holds to its budget.
#include <umsync/event.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

__global__ void scale(float* x, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = 2.0f * x[i] + 1.0f;
  }
}

struct compute {};

int main()
{
  int const n = 1 << 20;
  umsync::stream<compute> s;
  umsync::stream_buffer<float, compute> x(n, s);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size_bytes(), s.get()));
  umsync::launch(s, {.grid = (n + 255) / 256, .block = 256}, scale, x, n);
  s.synchronize();
  return 0;
}
