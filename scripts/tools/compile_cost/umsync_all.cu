// compile-cost: raw.cu's program written with umsync, through the umbrella header.
#include <umsync/umsync.hpp>

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
