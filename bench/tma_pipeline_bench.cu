// Family T: the typed TMA pipeline (sync/pipeline.hpp) against the same kernel hand-written and
// against CUTLASS's PipelineTmaAsync, over 1, 2 and 4 stages. Every version is warp-specialized:
// warp 0's lane 0 acquires a stage (waits its empty barrier) and fills it with one cp.async.bulk
// of 8 KiB whose full barrier expects the bytes; the consumer warps wait for it full, transform
// each word into global memory (out[t][i] = mix(in[t][i], t)) and release it (proxy fence, then
// an arrival on the empty barrier). Block b takes tiles b, b + gridDim.x, ...
//   tma_pipeline_copy              4 consumer warps, one round of mix(): the copy pipeline,
//                                  bandwidth-bound (global -> shared -> transform -> global)
//   tma_pipeline_producer_consumer 8 consumer warps, 32 rounds: the consumers' work about as long
//                                  as the loads, so the stages decide how much of it overlaps
// Versions, timed in the same iterations (order rotated each iteration), CUDA events after a
// blocking kernel: umsync (pipeline_storage, init_pipeline, acquire/fill, wait/release), raw (the
// same algorithm in cuda::ptx: mbarrier_init, try_wait_parity, cp_async_bulk,
// arrive_expect_tx, fence_proxy_async, arrive; the twin of test/sass/pipeline_sass.cu), CUTLASS
// (bench/tma_pipeline_cutlass.cu; only when configure found its headers, else the row's label
// says why), plain loads (no shared memory: every thread of the same grid reads, transforms and
// writes words grid-stride), and the ceiling: cudaMemcpyAsync device to device of the same bytes.
// Rows: <family>/<one_stage|two_stages|four_stages>/<blocks per SM: 1 or 4>. 128 MiB in, 128 MiB
// out (above the H200's 50 MiB L2); 20 iterations per repetition, fixed (below).
// Counters: umsync_us, raw_us, ratio (umsync / raw), cutlass_us, umsync_vs_cutlass, plain_us,
// ceiling_us, GB/s (read + written, umsync) and *_GB/s, fraction_of_ceiling (ceiling_us / umsync_us)
// and *_fraction for the others. Each row's first call checks every version and the ceiling's copy
// against a host reference on fresh random input, outputs poisoned first; a wrong word throws.
#include "support/timing.cuh"
#include "support/tma_pipeline.cuh"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

// Without CUTLASS, configure passes why (cmake/umsync-cutlass.cmake); the rows' label says it.
#if defined(UMSYNC_BENCH_CUTLASS_REASON_HEADER)
#  include "tma_pipeline_cutlass_reason.h"
#endif
#if !defined(UMSYNC_BENCH_CUTLASS) && !defined(UMSYNC_BENCH_CUTLASS_REASON)
#  define UMSYNC_BENCH_CUTLASS_REASON "not looked for"
#endif

namespace {

using umsync_bench::tma::mix;
using umsync_bench::tma::tile_bytes;
using umsync_bench::tma::words;

constexpr std::size_t data_bytes = std::size_t{128} << 20;
constexpr unsigned total_tiles = static_cast<unsigned>(data_bytes / (words * sizeof(std::uint32_t)));

template <unsigned Stages, unsigned ConsumerWarps, unsigned Rounds>
__global__ void __launch_bounds__(32 * (1 + ConsumerWarps))
    typed_kernel(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  umsync_bench::tma::typed_pipeline<Stages, ConsumerWarps, Rounds>(in, out, tiles);
}

template <unsigned Stages, unsigned ConsumerWarps, unsigned Rounds>
__global__ void __launch_bounds__(32 * (1 + ConsumerWarps))
    raw_kernel(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  umsync_bench::tma::raw_pipeline<Stages, ConsumerWarps, Rounds>(in, out, tiles);
}

/// Plain loads: the same grid and block, every thread reading, transforming and writing words
/// grid-stride (coalesced), nothing staged in shared memory.
template <unsigned Rounds>
__global__ void plain_loads(std::uint32_t const* in, std::uint32_t* out, std::size_t count)
{
  std::size_t const stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < count; i += stride) {
    out[i] = mix(in[i], static_cast<std::uint32_t>(i / words), Rounds);
  }
}

enum class version : unsigned { umsync, raw, cutlass, plain, ceiling };
constexpr std::array<char const*, 5> version_names{"umsync", "raw", "CUTLASS PipelineTmaAsync", "plain loads",
                                                   "cudaMemcpyAsync (ceiling)"};

/// Runs work(begin, end) over [0, workload::count) split across the host's cores (the reference
/// of the producer/consumer shape is 32 rounds of mix() on 33.5 M words).
template <class Work>
void on_host_threads(Work&& work)
{
  constexpr std::size_t total = data_bytes / sizeof(std::uint32_t);
  std::size_t const parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 32);
  std::vector<std::thread> threads;
  for (std::size_t p = 0; p < parts; ++p) {
    threads.emplace_back([&work, p, parts] { work(total * p / parts, total * (p + 1) / parts); });
  }
  for (auto& thread : threads) {
    thread.join();
  }
}

int sm_count()
{
  int device = 0;
  int sms = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <class Shape>
struct workload {
  static constexpr unsigned consumer_warps = Shape::consumer_warps;
  static constexpr unsigned rounds = Shape::rounds;
  static constexpr unsigned threads = 32 * (1 + consumer_warps);
  static constexpr std::size_t count = data_bytes / sizeof(std::uint32_t);

  unsigned stages;
  unsigned blocks;
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;

  workload(unsigned stage_count, unsigned block_count) : stages(stage_count), blocks(block_count)
  {
    UMSYNC_CUDA_CHECK(cudaMalloc(&in, data_bytes));
    UMSYNC_CUDA_CHECK(cudaMalloc(&out, data_bytes));
  }
  workload(workload const&) = delete;
  workload& operator=(workload const&) = delete;
  ~workload()
  {
    static_cast<void>(cudaFree(in));
    static_cast<void>(cudaFree(out));
  }

  template <unsigned Stages>
  void pipelined(version v, cudaStream_t s)
  {
    if (v == version::umsync) {
      typed_kernel<Stages, consumer_warps, rounds><<<blocks, threads, 0, s>>>(in, out, total_tiles);
    } else {
      raw_kernel<Stages, consumer_warps, rounds><<<blocks, threads, 0, s>>>(in, out, total_tiles);
    }
  }

  /// Queues version `v` on `s` (every call checked).
  void run(version v, cudaStream_t s)
  {
    switch (v) {
      case version::umsync:
      case version::raw:
        if (stages == 1) {
          pipelined<1>(v, s);
        } else if (stages == 2) {
          pipelined<2>(v, s);
        } else if (stages == 4) {
          pipelined<4>(v, s);
        } else {
          throw std::invalid_argument("tma_pipeline: 1, 2 or 4 stages");
        }
        break;
      case version::cutlass:
#if defined(UMSYNC_BENCH_CUTLASS)
        if (!umsync_bench::tma::launch_cutlass_pipeline(stages, consumer_warps, rounds, blocks, in, out, total_tiles,
                                                        s)) {
          throw std::invalid_argument("tma_pipeline: no CUTLASS kernel of this shape");
        }
        break;
#else
        throw std::logic_error("tma_pipeline: CUTLASS was not found at configure time");
#endif
      case version::plain: plain_loads<rounds><<<blocks, threads, 0, s>>>(in, out, count); break;
      case version::ceiling:
        UMSYNC_CUDA_CHECK(cudaMemcpyAsync(out, in, data_bytes, cudaMemcpyDeviceToDevice, s));
        break;
    }
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  }

  /// Fresh random input; every version's output (poisoned first) against the host's.
  void check(std::vector<version> const& versions)
  {
    std::vector<std::uint32_t> input(count);
    std::mt19937 random(std::random_device{}());
    for (auto& word : input) {
      word = static_cast<std::uint32_t>(random());
    }
    UMSYNC_CUDA_CHECK(cudaMemcpy(in, input.data(), data_bytes, cudaMemcpyHostToDevice));
    std::vector<std::uint32_t> want(count);
    on_host_threads([&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        want[i] = mix(input[i], static_cast<std::uint32_t>(i / words), rounds);
      }
    });
    std::vector<std::uint32_t> got(count);
    for (version const v : versions) {
      UMSYNC_CUDA_CHECK(cudaMemset(out, 0xFF, data_bytes));
      run(v, nullptr);
      UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
      UMSYNC_CUDA_CHECK(cudaMemcpy(got.data(), out, data_bytes, cudaMemcpyDeviceToHost));
      std::vector<std::uint32_t> const& reference = v == version::ceiling ? input : want;
      auto const wrong = static_cast<std::size_t>(std::mismatch(got.begin(), got.end(), reference.begin()).first -
                                                  got.begin());
      if (wrong != count) {
        char message[256];
        std::snprintf(message, sizeof message,
                      "tma_pipeline, %s, %u stages, %u blocks: word %zu of %zu is 0x%08x, the host's 0x%08x",
                      version_names[static_cast<unsigned>(v)], stages, blocks, wrong, count, got[wrong],
                      reference[wrong]);
        throw std::runtime_error(message);
      }
    }
  }
};

template <class Shape, unsigned Stages>
void tma_pipeline(benchmark::State& state)
{
  unsigned const stages = Stages;
  auto const per_sm = static_cast<unsigned>(state.range(0));
  workload<Shape> w(stages, per_sm * static_cast<unsigned>(sm_count()));
  std::vector<version> versions{version::umsync, version::raw, version::plain, version::ceiling};
#if defined(UMSYNC_BENCH_CUTLASS)
  versions.insert(versions.begin() + 2, version::cutlass);
#else
  state.SetLabel("no CUTLASS rows: " UMSYNC_BENCH_CUTLASS_REASON);
#endif
  // The first call of each row checks every version on fresh input; later calls only warm up.
  static std::set<std::pair<unsigned, unsigned>> checked;
  if (checked.insert({stages, per_sm}).second) {
    w.check(versions);
  } else {
    for (version const v : versions) {
      w.run(v, nullptr);
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  }

  std::array<double, 5> totals{};
  std::size_t samples = 0;
  for (auto _ : state) {
    double umsync_seconds = 0;
    for (std::size_t k = 0; k < versions.size(); ++k) {
      version const v = versions[(k + samples) % versions.size()];  // a rotated order each iteration
      double const seconds = umsync_bench::time_on_device(nullptr, [&](cudaStream_t s) { w.run(v, s); });
      totals[static_cast<unsigned>(v)] += seconds;
      if (v == version::umsync) {
        umsync_seconds = seconds;
      }
    }
    ++samples;
    state.SetIterationTime(umsync_seconds);
  }
  if (samples == 0) {
    return;
  }
  auto const us = [&](version v) { return totals[static_cast<unsigned>(v)] / static_cast<double>(samples) * 1e6; };
  auto const moved = 2.0 * static_cast<double>(data_bytes);  // read + written, as the ceilings count
  auto const gbps = [&](version v) { return moved / (us(v) * 1e-6) * 1e-9; };
  double const ceiling = us(version::ceiling);
  state.counters["umsync_us"] = us(version::umsync);
  state.counters["raw_us"] = us(version::raw);
  state.counters["ratio"] = us(version::umsync) / us(version::raw);
  state.counters["plain_us"] = us(version::plain);
  state.counters["ceiling_us"] = ceiling;
  state.counters["GB/s"] = gbps(version::umsync);
  state.counters["raw_GB/s"] = gbps(version::raw);
  state.counters["plain_GB/s"] = gbps(version::plain);
  state.counters["ceiling_GB/s"] = gbps(version::ceiling);
  state.counters["fraction_of_ceiling"] = ceiling / us(version::umsync);
  state.counters["raw_fraction"] = ceiling / us(version::raw);
  state.counters["plain_fraction"] = ceiling / us(version::plain);
#if defined(UMSYNC_BENCH_CUTLASS)
  state.counters["cutlass_us"] = us(version::cutlass);
  state.counters["umsync_vs_cutlass"] = us(version::umsync) / us(version::cutlass);
  state.counters["cutlass_GB/s"] = gbps(version::cutlass);
  state.counters["cutlass_fraction"] = ceiling / us(version::cutlass);
#endif
}

/// Fixed, as family A's: each iteration times five versions of about 0.1 ms each, and
/// --benchmark_min_time would count only umsync's (the manual time), so at 0.2 s a row would run
/// thousands of iterations, seconds of wall time. Repetitions follow the run's flag (3; quick 2).
constexpr benchmark::IterationCount iterations = 20;

}  // namespace

// The stage count is a word in the name (family A's strategies are too): the instance's one
// number is its size, blocks per SM, which the quick run picks (scripts/bench_quick_filter.txt).
#define UMSYNC_TMA_PIPELINE_BENCH(family, shape, stages, word) \
  BENCHMARK(tma_pipeline<umsync_bench::tma::shape, stages>)    \
      ->Name(family "/" word)                                  \
      ->Arg(1)                                                 \
      ->Arg(4)                                                 \
      ->Iterations(iterations)                                 \
      ->UseManualTime()                                        \
      ->Unit(benchmark::kMicrosecond)

UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_copy", copy_shape, 1, "one_stage");
UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_copy", copy_shape, 2, "two_stages");
UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_copy", copy_shape, 4, "four_stages");
UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_producer_consumer", compute_shape, 1, "one_stage");
UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_producer_consumer", compute_shape, 2, "two_stages");
UMSYNC_TMA_PIPELINE_BENCH("tma_pipeline_producer_consumer", compute_shape, 4, "four_stages");
