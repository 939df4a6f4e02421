// Family R (umsync_rmm_bench, built when umsync::rmm exists; docs/rmm.md): an umsync buffer
// from an RMM resource allocates at the speed of that resource called directly. Each row pairs,
// in the same iterations, `mr.allocate(stream, bytes, 256)` + `mr.deallocate(...)` (raw) with an
// async_pool_buffer<std::byte, Tag>(bytes, stream, mr) made and destroyed (umsync, which asks
// the resource for the same bytes and alignment), on one umsync stream, a batch of operations
// then one stream synchronization. Host-timed, as family B's pools are. Target: ratio within 1.02.
//   rmm_alloc_cuda_async:      rmm::mr::cuda_async_memory_resource (a CUDA pool of its own)
//   rmm_alloc_pool_over_async: rmm::mr::pool_memory_resource over cuda_async_memory_resource
//   rmm_alloc_pool_over_cuda:  rmm::mr::pool_memory_resource over cuda_memory_resource (cudaMalloc)
// This file is not part of umsync_bench: it needs RMM's CCCL first on the include path, and the
// other families are measured with the toolkit's (cmake/umsync-rmm.cmake, umsync_add_rmm_bench).
#include "support/timing.cuh"

#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream.hpp>

#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/pool_memory_resource.hpp>

#include <cstddef>

namespace {

struct compute {};
constexpr int batch = 1000;
// Large enough for the largest size, so the pools never grow while measured.
constexpr std::size_t initial_pool_bytes = std::size_t{256} << 20;

template <class Resource>
void alloc_from(benchmark::State& state, Resource& mr)
{
  auto const bytes = static_cast<std::size_t>(state.range(0));
  umsync::stream<compute> const s;
  cuda::stream_ref const stream = s.view();
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              void* const p = mr.allocate(stream, bytes, umsync::device_allocation_alignment);
              mr.deallocate(stream, p, bytes, umsync::device_allocation_alignment);
            }
            s.synchronize();
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              umsync::async_pool_buffer<std::byte, compute> buffer(bytes, s, mr);
              benchmark::DoNotOptimize(buffer.data());
            }
            s.synchronize();
          });
        });
  }
  compare.report(batch);
}

void rmm_alloc_cuda_async(benchmark::State& state)
{
  rmm::mr::cuda_async_memory_resource mr;
  alloc_from(state, mr);
}

void rmm_alloc_pool_over_async(benchmark::State& state)
{
  rmm::mr::pool_memory_resource mr{rmm::mr::cuda_async_memory_resource{}, initial_pool_bytes};
  alloc_from(state, mr);
}

void rmm_alloc_pool_over_cuda(benchmark::State& state)
{
  rmm::mr::pool_memory_resource mr{rmm::mr::cuda_memory_resource{}, initial_pool_bytes};
  alloc_from(state, mr);
}

}  // namespace

// {bytes}: a small block, family B's 1 MiB, and 64 MiB.
BENCHMARK(rmm_alloc_cuda_async)->Arg(256)->Arg(1 << 20)->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(rmm_alloc_pool_over_async)
    ->Arg(256)
    ->Arg(1 << 20)
    ->Arg(64 << 20)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(rmm_alloc_pool_over_cuda)
    ->Arg(256)
    ->Arg(1 << 20)
    ->Arg(64 << 20)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
