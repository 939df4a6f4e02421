// Families B and C: allocation latency and typed edges/launches, each against raw CUDA in the
// same run. Host-timed per operation over batches, as the raw baselines are.
//   B: cudaMalloc + cudaFree; cudaMallocFromPoolAsync + cudaFreeAsync on a pool that keeps its
//      memory (raw) against async_pool_buffer on the same pool (umsync); the same on a pool
//      with release threshold 0 (the default pool's setting on the H200 driver), with a stream
//      synchronization per operation as a training step has.
//   C: raw event record + wait against stream_dependency::edge; <<<>>> against umsync::launch.
#include "support/timing.cuh"

#include <umsync/dependency.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/stream.hpp>

#include <cstddef>

namespace {

struct compute {};
struct copy {};
constexpr int batch = 1000;

__global__ void touch(float* p) { p[0] = 1.0F; }

void alloc_cuda_malloc(benchmark::State& state)
{
  auto const bytes = static_cast<std::size_t>(state.range(0));
  int const ops = 200;
  double total = 0;
  for (auto _ : state) {
    double const seconds = umsync_bench::time_on_host([&] {
      for (int i = 0; i < ops; ++i) {
        void* p = nullptr;
        UMSYNC_CUDA_CHECK(cudaMalloc(&p, bytes));
        UMSYNC_CUDA_CHECK(cudaFree(p));
      }
    });
    state.SetIterationTime(seconds);
    total += seconds;
  }
  state.counters["us_per_op"] = total / (static_cast<double>(state.iterations()) * ops) * 1e6;
}

// Raw cudaMallocFromPoolAsync + cudaFreeAsync against async_pool_buffer, on one pool whose
// threshold is `threshold`; with `sync_each`, a stream synchronization after every free.
void alloc_pool(benchmark::State& state, std::uint64_t threshold, bool sync_each)
{
  auto const bytes = static_cast<std::size_t>(state.range(0));
  umsync::memory_pool pool({.release_threshold = threshold});
  umsync::stream<compute> s;
  umsync_bench::side_by_side compare(state);
  int const ops = sync_each ? 200 : batch;
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < ops; ++i) {
              void* p = nullptr;
              UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool.get(), s.get()));
              UMSYNC_CUDA_CHECK(cudaFreeAsync(p, s.get()));
              if (sync_each) {
                UMSYNC_CUDA_CHECK(cudaStreamSynchronize(s.get()));
              }
            }
            s.synchronize();
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < ops; ++i) {
              { umsync::async_pool_buffer<std::byte, compute> buffer(bytes, s, pool); }
              if (sync_each) {
                s.synchronize();
              }
            }
            s.synchronize();
          });
        });
  }
  compare.report(ops);
}

void alloc_pool_kept(benchmark::State& state) { alloc_pool(state, umsync::memory_pool_ref::keep_everything, false); }
void alloc_pool_kept_sync_each(benchmark::State& state)
{
  alloc_pool(state, umsync::memory_pool_ref::keep_everything, true);
}
void alloc_pool_threshold0_sync_each(benchmark::State& state) { alloc_pool(state, 0, true); }

void edge_stream_dependency(benchmark::State& state)
{
  umsync::stream<compute> a;
  umsync::stream<copy> b;
  cudaEvent_t raw_event = nullptr;
  UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&raw_event, cudaEventDisableTiming));
  umsync::stream_dependency edge(a, b);
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              UMSYNC_CUDA_CHECK(cudaEventRecord(raw_event, a.get()));
              UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(b.get(), raw_event, 0));
            }
            b.synchronize();
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              edge.edge();
            }
            b.synchronize();
          });
        });
  }
  compare.report(batch);
  UMSYNC_CUDA_CHECK(cudaEventDestroy(raw_event));
}

void launch_typed(benchmark::State& state)
{
  umsync::stream<compute> s;
  umsync::async_pool_buffer<float, compute> target(1, s);
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              touch<<<1, 1, 0, s.get()>>>(target.data());
            }
            UMSYNC_CUDA_CHECK(cudaGetLastError());
            s.synchronize();
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              umsync::launch(s, {}, touch, target);
            }
            s.synchronize();
          });
        });
  }
  compare.report(batch);
}

}  // namespace

BENCHMARK(alloc_cuda_malloc)->Arg(256)->Arg(1 << 20)->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(alloc_pool_kept)->Arg(256)->Arg(1 << 20)->Arg(64 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(alloc_pool_kept_sync_each)->Arg(1 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(alloc_pool_threshold0_sync_each)->Arg(1 << 20)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(edge_stream_dependency)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_typed)->UseManualTime()->Unit(benchmark::kMicrosecond);
