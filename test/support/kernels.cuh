// Small kernels the GPU tests share.
#pragma once

#include <cstdint>

namespace umsync_test {
// Internal linkage: each test file gets its own copy, so several may include this.
namespace {

/// Spins the calling thread for about `ns` nanoseconds of device time (%globaltimer), without
/// depending on clock rates: a block or a kernel made late on purpose.
__device__ inline void spin_for_ns(std::uint64_t ns)
{
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (std::uint64_t now = start; now - start < ns;) {
    __nanosleep(500);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

/// Keeps one thread busy for about `nanoseconds`, so a test can hold a stream busy.
__global__ void spin_for(std::uint64_t nanoseconds) { spin_for_ns(nanoseconds); }

/// Busy-waits `delay_ns`, then writes out[i] = 3 * in[i] + 1: a slow producer that a
/// missing edge would let a consumer overtake.
__global__ void delayed_affine(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint64_t delay_ns)
{
  if (threadIdx.x == 0) {
    spin_for_ns(delay_ns);
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = 3U * in[i] + 1U;
  }
}

/// out[i] = in[i] ^ key.
__global__ void xor_with(std::uint32_t const* in, std::uint32_t* out, std::size_t n, std::uint32_t key)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] ^ key;
  }
}

}  // namespace
}  // namespace umsync_test
