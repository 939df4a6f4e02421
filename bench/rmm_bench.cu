// Family R (umsync_rmm_bench, built when umsync::rmm exists; docs/rmm.md): an umsync buffer
// from an RMM resource allocates at the speed of that resource called directly. Each row pairs,
// in the same iterations, `mr.allocate(stream, bytes, 256)` + `mr.deallocate(...)` (raw) with an
// stream_buffer<std::byte, Tag>(bytes, stream, mr) made and destroyed (umsync, which asks
// the resource for the same bytes and alignment), on one umsync stream, a batch of operations
// then one stream synchronization. Host-timed, as family B's pools are. Target: ratio within 1.02.
//   rmm_alloc_cuda_async:      rmm::mr::cuda_async_memory_resource (a CUDA pool of its own)
//   rmm_alloc_pool_over_async: rmm::mr::pool_memory_resource over cuda_async_memory_resource
//   rmm_alloc_pool_over_cuda:  rmm::mr::pool_memory_resource over cuda_memory_resource (cudaMalloc)
// And RMM's own owning buffer over the same resources, in the same way against the same raw calls:
//   rmm_device_buffer_<resource>: rmm::device_buffer(bytes, stream, resource) made and destroyed
// (it keeps the resource as a cuda::mr::any_resource holding a resource reference), so that what
// an owning buffer costs over the bare calls is measured for RMM's as for umsync's. Its counters are
// raw_us, device_buffer_us and device_buffer_ratio (no umsync_us, no ratio: not a umsync pair).
// This file is not part of umsync_bench: it needs RMM's CCCL first on the include path, and the
// other families are measured with the toolkit's (cmake/umsync-rmm.cmake, umsync_add_rmm_bench).
#include "support/timing.cuh"

#include <umsync/memory/resource.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <rmm/device_buffer.hpp>
#include <rmm/mr/cuda_async_memory_resource.hpp>
#include <rmm/mr/cuda_memory_resource.hpp>
#include <rmm/mr/pool_memory_resource.hpp>

#include <cstddef>

namespace {

struct compute {};
constexpr int batch = 1000;
// Large enough for the largest size, so the pools never grow while measured.
constexpr std::size_t initial_pool_bytes = std::size_t{256} << 20;

enum class owner { umsync_buffer, rmm_device_buffer };

/// Pairs the resource's own calls (raw) with an owning buffer made and destroyed: umsync's
/// stream_buffer or RMM's device_buffer.
template <owner Owner, class Resource>
void owned_from(benchmark::State& state, Resource& mr)
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
              if constexpr (Owner == owner::umsync_buffer) {
                umsync::stream_buffer<std::byte, compute> buffer(bytes, s, mr);
                benchmark::DoNotOptimize(buffer.data());
              } else {
                rmm::device_buffer buffer(bytes, stream, rmm::device_async_resource_ref{mr});
                benchmark::DoNotOptimize(buffer.data());
              }
            }
            s.synchronize();
          });
        });
  }
  compare.report(batch);
  if constexpr (Owner == owner::rmm_device_buffer) {
    // Not a umsync row: RMM's buffer against the same raw calls, under names of its own, so that
    // the report's umsync/raw pairs leave it out.
    state.counters["device_buffer_us"] = state.counters["umsync_us"];
    state.counters["device_buffer_ratio"] = state.counters["ratio"];
    state.counters.erase("umsync_us");
    state.counters.erase("ratio");
  }
}

template <owner Owner>
void cuda_async(benchmark::State& state)
{
  rmm::mr::cuda_async_memory_resource mr;
  owned_from<Owner>(state, mr);
}

template <owner Owner>
void pool_over_async(benchmark::State& state)
{
  rmm::mr::pool_memory_resource mr{rmm::mr::cuda_async_memory_resource{}, initial_pool_bytes};
  owned_from<Owner>(state, mr);
}

template <owner Owner>
void pool_over_cuda(benchmark::State& state)
{
  rmm::mr::pool_memory_resource mr{rmm::mr::cuda_memory_resource{}, initial_pool_bytes};
  owned_from<Owner>(state, mr);
}

// {bytes}: a small block, family B's 1 MiB, and 64 MiB.
void sizes(benchmark::internal::Benchmark* b) { b->Arg(256)->Arg(1 << 20)->Arg(64 << 20); }

}  // namespace

#define UMSYNC_RMM_BENCH(name, function) \
  BENCHMARK(function)->Name(name)->Apply(sizes)->UseManualTime()->Unit(benchmark::kMicrosecond)
UMSYNC_RMM_BENCH("rmm_alloc_cuda_async", cuda_async<owner::umsync_buffer>);
UMSYNC_RMM_BENCH("rmm_alloc_pool_over_async", pool_over_async<owner::umsync_buffer>);
UMSYNC_RMM_BENCH("rmm_alloc_pool_over_cuda", pool_over_cuda<owner::umsync_buffer>);
UMSYNC_RMM_BENCH("rmm_device_buffer_cuda_async", cuda_async<owner::rmm_device_buffer>);
UMSYNC_RMM_BENCH("rmm_device_buffer_pool_over_async", pool_over_async<owner::rmm_device_buffer>);
UMSYNC_RMM_BENCH("rmm_device_buffer_pool_over_cuda", pool_over_cuda<owner::rmm_device_buffer>);
