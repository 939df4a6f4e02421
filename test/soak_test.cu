// Soak of stream-ordered memory: 10^6 allocate / use / free cycles across 4 streams from 2
// host threads. The pool's high-water mark must stay bounded (stream-ordered reuse works),
// nothing may leak, nothing may fail. Excluded from the compute-sanitizer runs (too slow
// there); the GPU suite runs it once, plain.
#include "support/gpu_test.hpp"

#include <umsync/launch.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

namespace {

__global__ void stamp(std::uint32_t* data, std::size_t n, std::uint32_t value)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] = value + static_cast<std::uint32_t>(i);
  }
}

__global__ void count_mismatches(std::uint32_t const* data, std::size_t n, std::uint32_t value,
                                 unsigned long long* mismatches)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    if (data[i] != value + static_cast<std::uint32_t>(i)) {
      atomicAdd(mismatches, 1ULL);
    }
  }
}

}  // namespace

TEST_CASE("soak: 10^6 allocate/use/free cycles on 4 streams from 2 threads stay bounded and correct")
{
  umsync_test::memory_baseline const baseline;
  constexpr int host_threads = 2;
  constexpr int streams_per_thread = 2;
  constexpr int cycles_per_thread = 500'000;
  constexpr std::size_t elements = 1024;  // 4 KiB per buffer
  umsync::memory_pool pool;
  unsigned long long* mismatches = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&mismatches, sizeof(unsigned long long)));
  UMSYNC_CUDA_CHECK(cudaMemset(mismatches, 0, sizeof(unsigned long long)));
  std::atomic<int> failures{0};
  auto work = [&](int thread) {
    try {
      std::array<umsync::stream<>, streams_per_thread> streams;
      for (int cycle = 0; cycle < cycles_per_thread; ++cycle) {
        auto const& s = streams[static_cast<std::size_t>(cycle) % streams_per_thread];
        std::uint32_t const value = static_cast<std::uint32_t>(thread * cycles_per_thread + cycle) * 2654435761U;
        umsync::stream_buffer<std::uint32_t> buffer(elements, s, pool);
        umsync::launch(s, {.grid = 4, .block = 256}, stamp, buffer, elements, value);
        if (cycle % 1024 == 0) {  // check a sample; checking all would double the launches
          umsync::launch(s, {.grid = 4, .block = 256}, count_mismatches, std::as_const(buffer), elements, value,
                         mismatches);
        }
      }
      for (auto const& s : streams) {
        s.synchronize();
      }
    } catch (...) {
      failures.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < host_threads; ++t) {
    threads.emplace_back(work, t);
  }
  for (auto& t : threads) {
    t.join();
  }
  CHECK(failures.load() == 0);
  unsigned long long host_mismatches = 1;
  UMSYNC_CUDA_CHECK(cudaMemcpy(&host_mismatches, mismatches, sizeof host_mismatches, cudaMemcpyDeviceToHost));
  CHECK(host_mismatches == 0);
  umsync::memory_pool_ref const ref = pool;
  MESSAGE("pool high water: used " << ref.used_high_water() << " B, reserved " << ref.reserved_high_water() << " B");
  CHECK(ref.used_bytes() == 0);
  // Stream-ordered reuse keeps a handful of 4 KiB blocks per stream in use, not 10^6.
  CHECK(ref.used_high_water() <= std::size_t{64} << 20);
  UMSYNC_CUDA_CHECK(cudaFree(mismatches));
}
