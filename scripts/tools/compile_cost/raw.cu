// compile-cost baseline: a kernel, cudaMallocAsync on a non-blocking stream, a <<<>>> launch,
// every call checked. Raw CUDA runtime, no umsync.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void scale(float* x, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = 2.0f * x[i] + 1.0f;
  }
}

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t const status_ = (call);                                            \
    if (status_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

int main()
{
  int const n = 1 << 20;
  cudaStream_t s = nullptr;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* x = nullptr;
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&x), n * sizeof(float), s));
  CHECK(cudaMemsetAsync(x, 0, n * sizeof(float), s));
  scale<<<(n + 255) / 256, 256, 0, s>>>(x, n);
  CHECK(cudaGetLastError());
  CHECK(cudaFreeAsync(x, s));
  CHECK(cudaStreamSynchronize(s));
  CHECK(cudaStreamDestroy(s));
  return 0;
}
