// Unified-memory helpers the GPU tests share: one warm-up that brings the UM driver to its
// steady state before a test takes its memory baseline, and the kernel it runs.
#pragma once

#include "support/gpu_test.hpp"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace umsync_test {
// Internal linkage: each test file gets its own copy, so several may include this.
namespace {
using u32 = std::uint32_t;
using umsync::managed_location;

__global__ void affine_in_place(u32* data, std::size_t n, u32 a, u32 b)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] = a * data[i] + b;
  }
}

bool concurrent_managed_access() { return umsync::capabilities(umsync::current_device()).concurrent_managed_access; }

void trim_default_managed_pool()
{
  cudaMemPool_t pool = nullptr;
  cudaMemLocation location{cudaMemLocationTypeDevice, umsync::current_device()};
  UMSYNC_CUDA_CHECK(cudaMemGetDefaultMemPool(&pool, &location, cudaMemAllocationTypeManaged));
  UMSYNC_CUDA_CHECK(cudaMemPoolTrimTo(pool, 0));
}

// The first managed allocation, migration, advice and managed-pool allocation set up driver
// state that stays for the process; do that once before any test takes its memory baseline.
void warm_up_managed()
{
  static bool const done = [] {
    umsync::stream<> const s;
    {
      umsync::managed_buffer<u32> warm(1 << 18);
      std::fill(warm.begin(), warm.end(), 1U);  // the kernel below reads every element
      warm.advise(umsync::advice::read_mostly{});
      warm.unadvise(umsync::advice::read_mostly{});
      if (concurrent_managed_access()) {
        warm.prefetch(managed_location::device(umsync::current_device()), s);
        umsync::launch(s, umsync::launch_config{.grid = 132, .block = 256}, affine_in_place, warm.span(), warm.size(),
                       u32{3}, u32{1});
        warm.prefetch(managed_location::host(), s);
        umsync::managed_buffer<u32> pooled(1 << 18, s);
        umsync::managed_batch batch;
        batch.add(pooled, managed_location::device(umsync::current_device()));
        batch.prefetch(s);
        s.synchronize();
      }
      s.synchronize();
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    trim_default_managed_pool();
    return true;
  }();
  static_cast<void>(done);
}

}  // namespace
}  // namespace umsync_test
