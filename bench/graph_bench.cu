// Family D: a training-step-like loop (two pool allocations, N small kernels split over two
// streams with a fork and a join edge, two frees), done four ways in the same run:
//   (a) cudaMalloc + cudaFree + stream launches (raw CUDA; cudaFree synchronizes the device)
//   (b) umsync: stream_buffer on a pool that keeps its memory, umsync::launch, stream_edge
//   (c) (b)'s step captured once with umsync::capture_scope, replayed with graph_exec::launch
//   (d) the same step written in raw CUDA, captured with cudaStreamBeginCapture, replayed
// Host-timed per step over a batch of steps ending in one synchronization, as the raw baselines
// in h200-baselines.md are. N = 1, 8, 64, 512 kernels per step.
// Counters: a/b/c/d_step_us, per-kernel cost (step / N), capture, instantiate and first-launch
// cost of both graphs, raw_us = d and umsync_us = c per step with ratio = c/d, a_over_c, and
// what the graph memory cache keeps after the graph_execs are destroyed, before and after trim.
#include "support/timing.cuh"

#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <algorithm>
#include <cstddef>
#include <optional>

namespace {

struct left {};
struct right {};

constexpr std::size_t elements = 4096;  // 16 KiB per buffer: the kernels are launch-bound
constexpr std::size_t bytes = elements * sizeof(float);
constexpr umsync::launch_config small{.grid = 16, .block = 256};

__global__ void bump(float* data, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] = data[i] * 0.5F + 1.0F;
  }
}

struct raw_edges {
  cudaEvent_t fork = nullptr;
  cudaEvent_t join = nullptr;
  raw_edges()
  {
    UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  }
  raw_edges(raw_edges const&) = delete;
  raw_edges& operator=(raw_edges const&) = delete;
  ~raw_edges()
  {
    static_cast<void>(cudaEventDestroy(fork));
    static_cast<void>(cudaEventDestroy(join));
  }
};

// (a): synchronous allocation; the frees wait for the whole device.
void step_cuda_malloc(cudaStream_t a, cudaStream_t b, raw_edges const& e, int kernels)
{
  float* x = nullptr;
  float* y = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&x, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&y, bytes));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(x, 0, bytes, a));
  UMSYNC_CUDA_CHECK(cudaEventRecord(e.fork, a));
  UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(b, e.fork, 0));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(y, 0, bytes, b));
  for (int k = 1; k < kernels; k += 2) {
    bump<<<small.grid, small.block, 0, b>>>(y, elements);
  }
  for (int k = 0; k < kernels; k += 2) {
    bump<<<small.grid, small.block, 0, a>>>(x, elements);
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  UMSYNC_CUDA_CHECK(cudaEventRecord(e.join, b));
  UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(a, e.join, 0));
  UMSYNC_CUDA_CHECK(cudaFree(y));
  UMSYNC_CUDA_CHECK(cudaFree(x));
}

// (d)'s step: raw pool allocations, launches and events, the order of umsync_step.
void step_raw_pool(cudaStream_t a, cudaStream_t b, cudaMemPool_t pool, raw_edges const& e, int kernels)
{
  float* x = nullptr;
  float* y = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&x), bytes, pool, a));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(x, 0, bytes, a));
  UMSYNC_CUDA_CHECK(cudaEventRecord(e.fork, a));
  UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(b, e.fork, 0));
  UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(reinterpret_cast<void**>(&y), bytes, pool, b));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(y, 0, bytes, b));
  for (int k = 1; k < kernels; k += 2) {
    bump<<<small.grid, small.block, 0, b>>>(y, elements);
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  UMSYNC_CUDA_CHECK(cudaFreeAsync(y, b));
  for (int k = 0; k < kernels; k += 2) {
    bump<<<small.grid, small.block, 0, a>>>(x, elements);
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  UMSYNC_CUDA_CHECK(cudaEventRecord(e.join, b));
  UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(a, e.join, 0));
  UMSYNC_CUDA_CHECK(cudaFreeAsync(x, a));
}

struct typed_edges {
  umsync::stream_edge<left, right> fork;
  umsync::stream_edge<right, left> join;
};

// (b) and (c)'s step: written once for streams and for capturing streams.
template <class A, class B>
void umsync_step(A const& a, B const& b, umsync::memory_pool_ref pool, typed_edges& e, int kernels)
{
  umsync::stream_buffer<float, left> x(elements, a, pool);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(x.data(), 0, x.size_bytes(), a.get()));
  e.fork.edge();
  {
    umsync::stream_buffer<float, right> y(elements, b, pool);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(y.data(), 0, y.size_bytes(), b.get()));
    for (int k = 1; k < kernels; k += 2) {
      umsync::launch(b, small, bump, y, elements);
    }
  }  // y is freed on b
  for (int k = 0; k < kernels; k += 2) {
    umsync::launch(a, small, bump, x, elements);
  }
  e.join.edge();
}  // x is freed on a, after the join

template <class Work>
double per_step_us(int steps, cudaStream_t sync_stream, Work&& work)
{
  return umsync_bench::time_on_host([&] {
           for (int i = 0; i < steps; ++i) {
             work();
           }
           UMSYNC_CUDA_CHECK(cudaStreamSynchronize(sync_stream));
         }) /
         steps * 1e6;
}

void graph_step(benchmark::State& state)
{
  int const kernels = static_cast<int>(state.range(0));
  int const steps = std::clamp(256 / kernels, 4, 64);
  int device = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  umsync::stream<left> a;
  umsync::stream<right> b;
  umsync::memory_pool pool;  // keeps its memory (release threshold: everything)
  raw_edges raw;
  typed_edges typed{{a, b}, {b, a}};

  // Warm every path once: modules, pool reservations, events.
  step_cuda_malloc(a.get(), b.get(), raw, kernels);
  step_raw_pool(a.get(), b.get(), pool.get(), raw, kernels);
  umsync_step(a, b, pool, typed, kernels);
  umsync::synchronize(a);
  umsync::synchronize(b);

  // (c): capture with umsync, instantiate, first launch.
  std::optional<umsync::graph> c_graph;
  double const c_capture_us = umsync_bench::time_on_host([&] {
                                umsync::capture_scope scope(a);
                                auto const cb = scope.fork(b);
                                umsync_step(scope.stream(), cb, pool, typed, kernels);
                                c_graph.emplace(scope.end());
                              }) *
                              1e6;
  std::optional<umsync::graph_exec> c_exec;
  double const c_instantiate_us = umsync_bench::time_on_host([&] { c_exec.emplace(*c_graph); }) * 1e6;
  double const c_first_launch_us = umsync_bench::time_on_host([&] {
                                     c_exec->launch(a);
                                     umsync::synchronize(a);
                                   }) *
                                   1e6;

  // (d): the same step captured with the raw API.
  cudaGraph_t d_graph = nullptr;
  double const d_capture_us = umsync_bench::time_on_host([&] {
                                UMSYNC_CUDA_CHECK(cudaStreamBeginCapture(a.get(), cudaStreamCaptureModeGlobal));
                                step_raw_pool(a.get(), b.get(), pool.get(), raw, kernels);
                                UMSYNC_CUDA_CHECK(cudaStreamEndCapture(a.get(), &d_graph));
                              }) *
                              1e6;
  cudaGraphExec_t d_exec = nullptr;
  double const d_instantiate_us = umsync_bench::time_on_host([&] {
                                    UMSYNC_CUDA_CHECK(cudaGraphInstantiate(&d_exec, d_graph, 0));
                                  }) *
                                  1e6;
  double const d_first_launch_us = umsync_bench::time_on_host([&] {
                                     UMSYNC_CUDA_CHECK(cudaGraphLaunch(d_exec, a.get()));
                                     UMSYNC_CUDA_CHECK(cudaStreamSynchronize(a.get()));
                                   }) *
                                   1e6;

  umsync_bench::side_by_side compare(state);  // raw = (d), umsync = (c)
  double a_total_us = 0;
  double b_total_us = 0;
  double c_total_us = 0;
  double d_total_us = 0;
  for (auto _ : state) {
    a_total_us += per_step_us(steps, a.get(), [&] { step_cuda_malloc(a.get(), b.get(), raw, kernels); });
    compare.iteration(
        [&] {
          double const us = per_step_us(steps, a.get(), [&] { UMSYNC_CUDA_CHECK(cudaGraphLaunch(d_exec, a.get())); });
          d_total_us += us;
          return us * steps * 1e-6;
        },
        [&] {
          double const us = per_step_us(steps, a.get(), [&] { c_exec->launch(a); });
          c_total_us += us;
          return us * steps * 1e-6;
        });
    b_total_us += per_step_us(steps, a.get(), [&] { umsync_step(a, b, pool, typed, kernels); });
  }
  compare.report(steps);

  auto const iterations = static_cast<double>(state.iterations());
  double const a_us = a_total_us / iterations;
  double const b_us = b_total_us / iterations;
  double const c_us = c_total_us / iterations;
  double const d_us = d_total_us / iterations;
  state.counters["a_step_us"] = a_us;
  state.counters["b_step_us"] = b_us;
  state.counters["c_step_us"] = c_us;
  state.counters["d_step_us"] = d_us;
  state.counters["a_kernel_us"] = a_us / kernels;
  state.counters["b_kernel_us"] = b_us / kernels;
  state.counters["c_kernel_us"] = c_us / kernels;
  state.counters["d_kernel_us"] = d_us / kernels;
  state.counters["us_per_op"] = c_us / kernels;
  state.counters["a_over_c"] = a_us / c_us;
  state.counters["b_over_c"] = b_us / c_us;
  state.counters["c_capture_us"] = c_capture_us;
  state.counters["d_capture_us"] = d_capture_us;
  state.counters["c_instantiate_us"] = c_instantiate_us;
  state.counters["d_instantiate_us"] = d_instantiate_us;
  state.counters["c_first_launch_us"] = c_first_launch_us;
  state.counters["d_first_launch_us"] = d_first_launch_us;

  // What the graph memory cache keeps once both executable graphs are gone.
  umsync::synchronize(a);
  umsync::synchronize(b);
  c_exec.reset();
  UMSYNC_CUDA_CHECK(cudaGraphExecDestroy(d_exec));
  UMSYNC_CUDA_CHECK(cudaGraphDestroy(d_graph));
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  umsync::graph_memory_usage const kept = umsync::graph_memory(device);
  umsync::trim_graph_memory(device);
  umsync::graph_memory_usage const trimmed = umsync::graph_memory(device);
  state.counters["graph_used_after_destroy_KiB"] = static_cast<double>(kept.used) / 1024.0;
  state.counters["graph_kept_after_destroy_KiB"] = static_cast<double>(kept.reserved) / 1024.0;
  state.counters["graph_kept_after_trim_KiB"] = static_cast<double>(trimmed.reserved) / 1024.0;
}

}  // namespace

BENCHMARK(graph_step)->Arg(1)->Arg(8)->Arg(64)->Arg(512)->UseManualTime()->Unit(benchmark::kMicrosecond);
