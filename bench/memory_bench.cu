// Families B and C: allocation latency and typed edges/launches, each against raw CUDA in the
// same run. Host-timed per operation over batches, as the raw baselines are.
//   B: cudaMalloc + cudaFree; cudaMallocFromPoolAsync + cudaFreeAsync on a pool that keeps its
//      memory (raw) against stream_buffer on the same pool (umsync); the same on a pool
//      with release threshold 0 (the default pool's setting on the H200 driver), with a stream
//      synchronization per operation as a training step has.
//   C: raw event record + wait against stream_edge::edge; <<<>>> against umsync::launch.
#include "support/timing.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <cstddef>
#include <vector>

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

// Raw cudaMallocFromPoolAsync + cudaFreeAsync against stream_buffer, on one pool whose
// threshold is `threshold`, round-robin over range(1) streams (1 when absent); with
// `sync_each`, a stream synchronization after every free.
void alloc_pool(benchmark::State& state, std::uint64_t threshold, bool sync_each)
{
  auto const bytes = static_cast<std::size_t>(state.range(0));
  auto const stream_count = static_cast<std::size_t>(state.range(1));
  umsync::memory_pool pool({.release_threshold = threshold});
  std::vector<umsync::stream<compute>> streams(stream_count);
  auto synchronize_all = [&] {
    for (auto const& s : streams) {
      s.synchronize();
    }
  };
  umsync_bench::side_by_side compare(state);
  int const ops = sync_each ? 200 : batch;
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < ops; ++i) {
              cudaStream_t const s = streams[static_cast<std::size_t>(i) % stream_count].get();
              void* p = nullptr;
              UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(&p, bytes, pool.get(), s));
              UMSYNC_CUDA_CHECK(cudaFreeAsync(p, s));
              if (sync_each) {
                UMSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
              }
            }
            synchronize_all();
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < ops; ++i) {
              auto const& s = streams[static_cast<std::size_t>(i) % stream_count];
              {
                umsync::stream_buffer<std::byte, compute> buffer(bytes, s, pool);
              }
              if (sync_each) {
                s.synchronize();
              }
            }
            synchronize_all();
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
  umsync::stream_edge edge(a, b);
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
  umsync::stream_buffer<float, compute> target(1, s);
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

BENCHMARK(alloc_cuda_malloc)
    ->Arg(256)
    ->Arg(1 << 20)
    ->Arg(64 << 20)
    ->Arg(1 << 30)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
// {bytes, streams}
BENCHMARK(alloc_pool_kept)
    ->ArgsProduct({{256, 1 << 20, 64 << 20, 1 << 30}, {1}})
    ->ArgsProduct({{1 << 20}, {4, 16}})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(alloc_pool_kept_sync_each)->Args({1 << 20, 1})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(alloc_pool_threshold0_sync_each)->Args({1 << 20, 1})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(edge_stream_dependency)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_typed)->UseManualTime()->Unit(benchmark::kMicrosecond);
