// Shared timing helpers for umsync's benchmarks.
//
// Device work is timed with CUDA events around the region. Before the start event a
// "blocking" kernel keeps the device busy for a few tens of microseconds, so the host has
// queued start event, work and stop event before the device reaches them: the launch cost
// stays out of the measured region. Cold samples flush L2 first by writing a buffer twice
// its size.
//
// With UMSYNC_NVTX each family is an NVTX range, "umsync bench graph" for bench/graph_bench.cu,
// from its first timed work (time_on_device, time_on_host, side_by_side) to the next family's
// or the end of the run; umsync's own ranges nest inside it (docs/nvtx.md).
#pragma once

#include <benchmark/benchmark.h>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/nvtx.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace umsync_bench {

namespace detail {

#if defined(UMSYNC_NVTX)
/// The benchmark family's NVTX range: one open at a time on the benchmark thread, "umsync
/// bench <family>" for bench/<family>_bench.cu.
class family_ranges {
 public:
  void enter(std::string_view source_file)
  {
    std::string_view family = source_file.substr(source_file.find_last_of('/') + 1);
    family = family.substr(0, family.rfind("_bench"));
    if (range_ && family == family_) {
      return;
    }
    range_.reset();
    family_ = family;
    range_.emplace(("umsync bench " + family_).c_str());
  }

 private:
  std::string family_;
  std::optional<umsync::nvtx_scope> range_;
};

inline family_ranges families;
#endif

namespace {  // internal linkage: every benchmark file gets its own copy of the kernel
__global__ void hold_device(std::uint64_t nanoseconds)
{
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (now - start < nanoseconds) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

/// Opens this file's family range. The callers are templates instantiated with each file's own
/// lambdas, so __BASE_FILE__ names the family that runs (a plain inline function would keep one
/// file's copy for all).
inline void enter_family()
{
#if defined(UMSYNC_NVTX)
  families.enter(__BASE_FILE__);
#endif
}
}  // namespace
}  // namespace detail

/// Keeps `stream` busy for `nanoseconds` so that what is queued next starts without a gap.
inline void block_stream(cudaStream_t stream, std::uint64_t nanoseconds = 50'000)
{
  detail::hold_device<<<1, 1, 0, stream>>>(nanoseconds);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
}

/// Evicts L2 by writing a device buffer twice the L2 size.
class l2_flusher {
 public:
  l2_flusher() : bytes_(2 * static_cast<std::size_t>(umsync::capabilities(0).l2_cache_bytes))
  {
    UMSYNC_CUDA_CHECK(cudaMalloc(&buffer_, bytes_));
  }
  l2_flusher(l2_flusher const&) = delete;
  l2_flusher& operator=(l2_flusher const&) = delete;
  ~l2_flusher() { static_cast<void>(cudaFree(buffer_)); }
  void flush(cudaStream_t stream) { UMSYNC_CUDA_CHECK(cudaMemsetAsync(buffer_, 0x3C, bytes_, stream)); }

 private:
  std::size_t bytes_;
  void* buffer_ = nullptr;
};

/// Times `work(stream)` with raw CUDA events after a blocking kernel; returns seconds.
template <class Work>
double time_on_device(cudaStream_t stream, Work&& work)
{
  cudaEvent_t start = nullptr;
  cudaEvent_t stop = nullptr;
  detail::enter_family();
  UMSYNC_CUDA_CHECK(cudaEventCreate(&start));
  UMSYNC_CUDA_CHECK(cudaEventCreate(&stop));
  block_stream(stream);
  UMSYNC_CUDA_CHECK(cudaEventRecord(start, stream));
  work(stream);
  UMSYNC_CUDA_CHECK(cudaEventRecord(stop, stream));
  UMSYNC_CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  UMSYNC_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(start));
  UMSYNC_CUDA_CHECK(cudaEventDestroy(stop));
  return static_cast<double>(ms) * 1e-3;
}

/// Host time of `work()`, in seconds.
template <class Work>
double time_on_host(Work&& work)
{
  detail::enter_family();
  auto const t0 = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Side-by-side comparison of a raw-CUDA baseline and the umsync version of the same
/// operation: both run in every benchmark iteration, in alternating order, so drift and
/// warm-up hit both alike. The manual time is umsync's; counters give both and the ratio.
class side_by_side {
 public:
  explicit side_by_side(benchmark::State& state) : state_(state) {}

  template <class Raw, class Wrapped>
  void iteration(Raw&& raw, Wrapped&& wrapped)
  {
    detail::enter_family();
    double raw_seconds = 0;
    double wrapped_seconds = 0;
    if ((iterations_++ & 1U) == 0) {
      raw_seconds = raw();
      wrapped_seconds = wrapped();
    } else {
      wrapped_seconds = wrapped();
      raw_seconds = raw();
    }
    raw_total_ += raw_seconds;
    wrapped_total_ += wrapped_seconds;
    state_.SetIterationTime(wrapped_seconds);
  }

  /// Reports per-operation times (us) and umsync/raw, given the operations per iteration.
  void report(double operations_per_iteration)
  {
    double const ops = operations_per_iteration * static_cast<double>(iterations_);
    if (ops <= 0) {
      return;
    }
    state_.counters["raw_us"] = raw_total_ / ops * 1e6;
    state_.counters["umsync_us"] = wrapped_total_ / ops * 1e6;
    state_.counters["ratio"] = wrapped_total_ / raw_total_;
  }

 private:
  benchmark::State& state_;
  unsigned iterations_ = 0;
  double raw_total_ = 0;
  double wrapped_total_ = 0;
};

}  // namespace umsync_bench
