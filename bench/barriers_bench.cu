// Family E: device barriers. (1) Latency in cycles per barrier (clock64 around a loop of
// barriers, one block, thread 0's count) for __syncthreads(), named barriers over 1, 4, 8 and 16
// warps and __syncwarp, raw intrinsic against umsync's typed barrier in the same iterations;
// counters raw_cycles, umsync_cycles and ratio (umsync / raw). (2) A warp-specialized
// producer/consumer kernel (4 producer warps load tiles into a double buffer in shared memory, 4
// consumer warps transform and store them) synchronized with umsync's arrive/wait barriers,
// against the same kernel with raw named barriers and with __syncthreads(); CUDA-event timing,
// GB/s counted as bytes read + written.
#include "support/timing.cuh"

#include <umsync/sync/barrier_plan.hpp>
#include <umsync/sync/named_barrier.hpp>
#include <umsync/sync/warp.hpp>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

namespace {

constexpr unsigned latency_iterations = 20'000;

template <unsigned Warps>
constexpr umsync::warp_mask_t first_warps = Warps == 32 ? 0xFFFFFFFFU : (1U << Warps) - 1U;

enum class barrier_form { syncthreads, named_raw, named_typed, syncwarp_raw, syncwarp_typed };

template <barrier_form Form, unsigned Warps>
__device__ __forceinline__ void one_barrier()
{
  if constexpr (Form == barrier_form::syncthreads) {
    __syncthreads();
  } else if constexpr (Form == barrier_form::named_raw) {
    __barrier_sync_count(1, 32 * Warps);
  } else if constexpr (Form == barrier_form::named_typed) {
    umsync::named_barrier<1, first_warps<Warps>, 32 * Warps>{}.sync();
  } else if constexpr (Form == barrier_form::syncwarp_raw) {
    __syncwarp(0xFFFFFFFFU);
  } else {
    umsync::syncwarp<umsync::full_warp>();
  }
}

template <barrier_form Form, unsigned Warps>
__global__ void barrier_latency(unsigned iterations, long long* cycles)
{
  one_barrier<Form, Warps>();  // everyone has arrived before the clock starts
  long long const start = clock64();
  for (unsigned i = 0; i < iterations; ++i) {
    one_barrier<Form, Warps>();
  }
  long long const stop = clock64();
  if (threadIdx.x == 0) {
    *cycles = stop - start;
  }
}

/// Cycles per barrier of one single-block launch of `kernel`.
double cycles_per_barrier(void (*kernel)(unsigned, long long*), unsigned threads, long long* cycles)
{
  kernel<<<1, threads>>>(latency_iterations, cycles);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
  long long host_cycles = 0;
  UMSYNC_CUDA_CHECK(cudaMemcpy(&host_cycles, cycles, sizeof(host_cycles), cudaMemcpyDeviceToHost));
  return static_cast<double>(host_cycles) / latency_iterations;
}

/// raw and typed alternately each iteration; the manual time is the typed kernel's event time.
void compare_latency(benchmark::State& state, void (*raw)(unsigned, long long*), void (*typed)(unsigned, long long*),
                     unsigned threads)
{
  long long* cycles = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&cycles, sizeof(long long)));
  double raw_total = 0;
  double typed_total = 0;
  unsigned samples = 0;
  for (auto _ : state) {
    bool const raw_first = (samples & 1U) == 0;
    double raw_cycles = 0;
    double typed_cycles = 0;
    if (raw_first) {
      raw_cycles = cycles_per_barrier(raw, threads, cycles);
    }
    double const seconds = umsync_bench::time_on_device(nullptr, [&](cudaStream_t) {
      typed<<<1, threads>>>(latency_iterations, cycles);
      UMSYNC_CUDA_CHECK(cudaGetLastError());
    });
    long long host_cycles = 0;
    UMSYNC_CUDA_CHECK(cudaMemcpy(&host_cycles, cycles, sizeof(host_cycles), cudaMemcpyDeviceToHost));
    typed_cycles = static_cast<double>(host_cycles) / latency_iterations;
    if (!raw_first) {
      raw_cycles = cycles_per_barrier(raw, threads, cycles);
    }
    raw_total += raw_cycles;
    typed_total += typed_cycles;
    ++samples;
    state.SetIterationTime(seconds);
  }
  UMSYNC_CUDA_CHECK(cudaFree(cycles));
  if (samples > 0) {
    state.counters["raw_cycles"] = raw_total / samples;
    state.counters["umsync_cycles"] = typed_total / samples;
    state.counters["ratio"] = typed_total / raw_total;
  }
  state.counters["threads"] = threads;
}

/// __syncthreads() against umsync's named barrier over the same warps (all of the block).
template <unsigned Warps>
void barrier_named_vs_syncthreads(benchmark::State& state)
{
  compare_latency(state, barrier_latency<barrier_form::syncthreads, Warps>,
                  barrier_latency<barrier_form::named_typed, Warps>, 32 * Warps);
}

/// Raw __barrier_sync_count against umsync's named_barrier, over 1, 4, 8, 16 warps.
template <unsigned Warps>
void barrier_named_raw_vs_typed(benchmark::State& state)
{
  compare_latency(state, barrier_latency<barrier_form::named_raw, Warps>,
                  barrier_latency<barrier_form::named_typed, Warps>, 32 * Warps);
}

void barrier_syncwarp_raw_vs_typed(benchmark::State& state)
{
  compare_latency(state, barrier_latency<barrier_form::syncwarp_raw, 1>,
                  barrier_latency<barrier_form::syncwarp_typed, 1>, 32);
}

// ---- warp-specialized producer/consumer ----------------------------------------------------

constexpr unsigned pipeline_threads = 256;  // warps 0..3 produce, 4..7 consume
constexpr unsigned tile_vectors = 128;      // one float4 per producer thread
constexpr unsigned stages = 2;

using pipeline_plan = umsync::barrier_plan<pipeline_threads, umsync::producer_consumer_spec<1, 0x0F, 0xF0>,  // full 0
                                           umsync::producer_consumer_spec<2, 0x0F, 0xF0>,                    // full 1
                                           umsync::producer_consumer_spec<3, 0xF0, 0x0F>,                    // empty 0
                                           umsync::producer_consumer_spec<4, 0xF0, 0x0F>>;                   // empty 1

__device__ __forceinline__ float4 transform(float4 v)
{
  for (int i = 0; i < 8; ++i) {
    v.x = fmaf(v.x, 1.0001F, 0.25F);
    v.y = fmaf(v.y, 0.9999F, -0.25F);
    v.z = fmaf(v.z, 1.0002F, 0.5F);
    v.w = fmaf(v.w, 0.9998F, -0.5F);
  }
  return v;
}

enum class pipeline_sync { umsync_named, raw_named };

template <pipeline_sync Sync>
__device__ __forceinline__ void producer_wait_empty(unsigned stage)
{
  if constexpr (Sync == pipeline_sync::umsync_named) {
    stage == 0 ? pipeline_plan::barrier<2>().consumer_wait() : pipeline_plan::barrier<3>().consumer_wait();
  } else {
    stage == 0 ? __barrier_sync_count(3, pipeline_threads) : __barrier_sync_count(4, pipeline_threads);
  }
}
template <pipeline_sync Sync>
__device__ __forceinline__ void producer_arrive_full(unsigned stage)
{
  if constexpr (Sync == pipeline_sync::umsync_named) {
    stage == 0 ? pipeline_plan::barrier<0>().producer_arrive() : pipeline_plan::barrier<1>().producer_arrive();
  } else if (stage == 0) {
    asm volatile("barrier.arrive 1, 256;" ::: "memory");
  } else {
    asm volatile("barrier.arrive 2, 256;" ::: "memory");
  }
}
template <pipeline_sync Sync>
__device__ __forceinline__ void consumer_wait_full(unsigned stage)
{
  if constexpr (Sync == pipeline_sync::umsync_named) {
    stage == 0 ? pipeline_plan::barrier<0>().consumer_wait() : pipeline_plan::barrier<1>().consumer_wait();
  } else {
    stage == 0 ? __barrier_sync_count(1, pipeline_threads) : __barrier_sync_count(2, pipeline_threads);
  }
}
template <pipeline_sync Sync>
__device__ __forceinline__ void consumer_arrive_empty(unsigned stage)
{
  if constexpr (Sync == pipeline_sync::umsync_named) {
    stage == 0 ? pipeline_plan::barrier<2>().producer_arrive() : pipeline_plan::barrier<3>().producer_arrive();
  } else if (stage == 0) {
    asm volatile("barrier.arrive 3, 256;" ::: "memory");
  } else {
    asm volatile("barrier.arrive 4, 256;" ::: "memory");
  }
}

/// Producers run up to `stages` tiles ahead of the consumers; each side waits only for the other.
template <pipeline_sync Sync>
__global__ void __launch_bounds__(pipeline_threads)
    pipeline_named(float4 const* in, float4* out, unsigned tiles_per_block)
{
  __shared__ float4 buffer[stages][tile_vectors];
  unsigned const t = threadIdx.x % tile_vectors;
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * tile_vectors;
  if (threadIdx.x < tile_vectors) {
    for (unsigned k = 0; k < tiles_per_block; ++k) {
      unsigned const stage = k % stages;
      if (k >= stages) {
        producer_wait_empty<Sync>(stage);
      }
      buffer[stage][t] = in[base + std::size_t(k) * tile_vectors + t];
      producer_arrive_full<Sync>(stage);
    }
  } else {
    for (unsigned k = 0; k < tiles_per_block; ++k) {
      unsigned const stage = k % stages;
      consumer_wait_full<Sync>(stage);
      float4 const v = buffer[stage][tile_vectors - 1 - t];
      if (k + stages < tiles_per_block) {
        consumer_arrive_empty<Sync>(stage);
      }
      out[base + std::size_t(k) * tile_vectors + t] = transform(v);
    }
  }
}

/// The same roles in lockstep: in step k producers load tile k+1 while consumers handle tile k,
/// then the whole block meets at __syncthreads().
__global__ void __launch_bounds__(pipeline_threads)
    pipeline_syncthreads(float4 const* in, float4* out, unsigned tiles_per_block)
{
  __shared__ float4 buffer[stages][tile_vectors];
  unsigned const t = threadIdx.x % tile_vectors;
  bool const producer = threadIdx.x < tile_vectors;
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * tile_vectors;
  if (producer) {
    buffer[0][t] = in[base + t];
  }
  __syncthreads();
  for (unsigned k = 0; k < tiles_per_block; ++k) {
    unsigned const stage = k % stages;
    if (producer) {
      if (k + 1 < tiles_per_block) {
        buffer[(k + 1) % stages][t] = in[base + std::size_t(k + 1) * tile_vectors + t];
      }
    } else {
      out[base + std::size_t(k) * tile_vectors + t] = transform(buffer[stage][tile_vectors - 1 - t]);
    }
    __syncthreads();
  }
}

float4 transform_on_host(float4 v)
{
  for (int i = 0; i < 8; ++i) {
    v.x = std::fma(v.x, 1.0001F, 0.25F);
    v.y = std::fma(v.y, 0.9999F, -0.25F);
    v.z = std::fma(v.z, 1.0002F, 0.5F);
    v.w = std::fma(v.w, 0.9998F, -0.5F);
  }
  return v;
}

void warp_specialized_pipeline(benchmark::State& state)
{
  auto const blocks = static_cast<unsigned>(state.range(0));
  constexpr unsigned tiles_per_block = 64;
  std::size_t const vectors = std::size_t(blocks) * tiles_per_block * tile_vectors;
  std::size_t const bytes = vectors * sizeof(float4);
  std::vector<float4> host(vectors);
  for (std::size_t i = 0; i < vectors; ++i) {
    auto const f = static_cast<float>(i % 9973);
    host[i] = float4{f, -f, 0.5F * f, 2.0F};
  }
  float4* in = nullptr;
  float4* out = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&in, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&out, bytes));
  UMSYNC_CUDA_CHECK(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));

  auto run_umsync = [&](cudaStream_t s) {
    pipeline_named<pipeline_sync::umsync_named><<<blocks, pipeline_threads, 0, s>>>(in, out, tiles_per_block);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  };
  auto run_raw = [&](cudaStream_t s) {
    pipeline_named<pipeline_sync::raw_named><<<blocks, pipeline_threads, 0, s>>>(in, out, tiles_per_block);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  };
  auto run_syncthreads = [&](cudaStream_t s) {
    pipeline_syncthreads<<<blocks, pipeline_threads, 0, s>>>(in, out, tiles_per_block);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  };

  // Every version must produce the right output before it is timed (once per size and process:
  // Google Benchmark calls this function several times per size).
  static std::set<unsigned> verified;
  bool correct = true;
  std::vector<float4> result(verified.contains(blocks) ? 0 : vectors);
  auto verify = [&](auto&& run) {
    UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, bytes));
    run(nullptr);
    UMSYNC_CUDA_CHECK(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
    for (std::size_t tile = 0; tile < vectors / tile_vectors && correct; ++tile) {
      for (unsigned t = 0; t < tile_vectors; ++t) {
        float4 const want = transform_on_host(host[tile * tile_vectors + tile_vectors - 1 - t]);
        float4 const got = result[tile * tile_vectors + t];
        if (got.x != want.x || got.y != want.y || got.z != want.z || got.w != want.w) {
          correct = false;
          break;
        }
      }
    }
  };
  if (!verified.contains(blocks)) {
    verify(run_umsync);
    verify(run_raw);
    verify(run_syncthreads);
    if (correct) {
      verified.insert(blocks);
    }
  }
  if (!correct) {
    state.SkipWithError("a pipeline version produced wrong output");
  }

  double umsync_total = 0;
  double raw_total = 0;
  double syncthreads_total = 0;
  unsigned samples = 0;
  for (auto _ : state) {
    if (!correct) {
      break;
    }
    double const u = umsync_bench::time_on_device(nullptr, run_umsync);
    double const r = umsync_bench::time_on_device(nullptr, run_raw);
    double const s = umsync_bench::time_on_device(nullptr, run_syncthreads);
    umsync_total += u;
    raw_total += r;
    syncthreads_total += s;
    ++samples;
    state.SetIterationTime(u);
  }
  UMSYNC_CUDA_CHECK(cudaFree(in));
  UMSYNC_CUDA_CHECK(cudaFree(out));
  if (samples > 0) {
    double const moved = 2.0 * static_cast<double>(bytes) * samples;
    state.counters["GB/s"] = moved / umsync_total * 1e-9;
    state.counters["raw_named_GB/s"] = moved / raw_total * 1e-9;
    state.counters["syncthreads_GB/s"] = moved / syncthreads_total * 1e-9;
    state.counters["raw_us"] = raw_total / samples * 1e6;
    state.counters["umsync_us"] = umsync_total / samples * 1e6;
    state.counters["ratio"] = umsync_total / raw_total;
    state.counters["vs_syncthreads"] = umsync_total / syncthreads_total;
  }
}

}  // namespace

BENCHMARK(barrier_named_vs_syncthreads<4>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_named_vs_syncthreads<32>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_named_raw_vs_typed<1>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_named_raw_vs_typed<4>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_named_raw_vs_typed<8>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_named_raw_vs_typed<16>)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(barrier_syncwarp_raw_vs_typed)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(warp_specialized_pipeline)->Arg(132 * 8)->Arg(132 * 16)->UseManualTime()->Unit(benchmark::kMicrosecond);
