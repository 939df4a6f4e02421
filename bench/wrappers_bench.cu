// Family 0, continued: what umsync's stream and event wrappers cost against raw CUDA, side
// by side in the same iterations: kernel launch, an event edge between two streams, and a
// stream synchronization. Host-timed over batches, as the raw baselines are. Target: the
// ratio umsync/raw within 1.02.
#include "support/timing.cuh"

#include <umsync/event.hpp>
#include <umsync/stream.hpp>
#include <umsync/timed_event.hpp>

namespace {

__global__ void empty_kernel() {}

constexpr int batch = 1000;

struct compute {};
struct copy {};

void wrapper_launch(benchmark::State& state)
{
  cudaStream_t raw = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  umsync::stream<compute> wrapped;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              empty_kernel<<<1, 1, 0, raw>>>();
            }
            UMSYNC_CUDA_CHECK(cudaStreamSynchronize(raw));
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              empty_kernel<<<1, 1, 0, wrapped.view()>>>();
            }
            wrapped.synchronize();
          });
        });
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  compare.report(batch);
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(raw));
}

// Ping-pong: kernel on A, edge A->B, kernel on B, edge B->A; one operation is one edge.
void wrapper_event_edge(benchmark::State& state)
{
  cudaStream_t raw_a = nullptr;
  cudaStream_t raw_b = nullptr;
  cudaEvent_t raw_ea = nullptr;
  cudaEvent_t raw_eb = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&raw_a, cudaStreamNonBlocking));
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&raw_b, cudaStreamNonBlocking));
  UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&raw_ea, cudaEventDisableTiming));
  UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&raw_eb, cudaEventDisableTiming));
  umsync::stream<compute> a;
  umsync::stream<copy> b;
  umsync::event ea;
  umsync::event eb;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch / 2; ++i) {
              empty_kernel<<<1, 1, 0, raw_a>>>();
              UMSYNC_CUDA_CHECK(cudaEventRecord(raw_ea, raw_a));
              UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(raw_b, raw_ea, 0));
              empty_kernel<<<1, 1, 0, raw_b>>>();
              UMSYNC_CUDA_CHECK(cudaEventRecord(raw_eb, raw_b));
              UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(raw_a, raw_eb, 0));
            }
            UMSYNC_CUDA_CHECK(cudaStreamSynchronize(raw_a));
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch / 2; ++i) {
              empty_kernel<<<1, 1, 0, a.view()>>>();
              ea.record(a);
              b.wait(ea);
              empty_kernel<<<1, 1, 0, b.view()>>>();
              eb.record(b);
              a.wait(eb);
            }
            a.synchronize();
          });
        });
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  compare.report(batch);
  UMSYNC_CUDA_CHECK(cudaEventDestroy(raw_ea));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(raw_eb));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(raw_a));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(raw_b));
}

// Launch plus host synchronization, one operation each.
void wrapper_stream_sync(benchmark::State& state)
{
  cudaStream_t raw = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  umsync::stream<compute> wrapped;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              empty_kernel<<<1, 1, 0, raw>>>();
              UMSYNC_CUDA_CHECK(cudaStreamSynchronize(raw));
            }
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              empty_kernel<<<1, 1, 0, wrapped.view()>>>();
              wrapped.synchronize();
            }
          });
        });
  }
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  compare.report(batch);
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(raw));
}

// Event timing itself: a raw event pair against a timed_event pair around the same kernel.
void wrapper_timed_event(benchmark::State& state)
{
  cudaStream_t raw = nullptr;
  cudaEvent_t raw_start = nullptr;
  cudaEvent_t raw_stop = nullptr;
  UMSYNC_CUDA_CHECK(cudaStreamCreateWithFlags(&raw, cudaStreamNonBlocking));
  UMSYNC_CUDA_CHECK(cudaEventCreate(&raw_start));
  UMSYNC_CUDA_CHECK(cudaEventCreate(&raw_stop));
  umsync::stream<compute> wrapped;
  umsync::timed_event start;
  umsync::timed_event stop;
  umsync_bench::side_by_side compare(state);
  float sink = 0;
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              UMSYNC_CUDA_CHECK(cudaEventRecord(raw_start, raw));
              empty_kernel<<<1, 1, 0, raw>>>();
              UMSYNC_CUDA_CHECK(cudaEventRecord(raw_stop, raw));
            }
            UMSYNC_CUDA_CHECK(cudaEventSynchronize(raw_stop));
            float ms = 0;
            UMSYNC_CUDA_CHECK(cudaEventElapsedTime(&ms, raw_start, raw_stop));
            sink += ms;
          });
        },
        [&] {
          return umsync_bench::time_on_host([&] {
            for (int i = 0; i < batch; ++i) {
              start.record(wrapped);
              empty_kernel<<<1, 1, 0, wrapped.view()>>>();
              stop.record(wrapped);
            }
            stop.synchronize();
            sink += (stop - start).count();
          });
        });
  }
  benchmark::DoNotOptimize(sink);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  compare.report(batch);
  UMSYNC_CUDA_CHECK(cudaEventDestroy(raw_start));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(raw_stop));
  UMSYNC_CUDA_CHECK(cudaStreamDestroy(raw));
}

}  // namespace

BENCHMARK(wrapper_launch)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(wrapper_event_edge)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(wrapper_stream_sync)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(wrapper_timed_event)->UseManualTime()->Unit(benchmark::kMicrosecond);
