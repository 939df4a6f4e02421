// Library calls: umsync::library_call and umsync::exec_policy against the raw calls they wrap,
// side by side in the same iterations, device-timed with CUDA events (bench/support/timing.cuh).
//   library_call_sgemm/<n>:        cuBLAS SGEMM n x n x n through library_call vs cublasSgemm
//   library_call_cub_reduce/<n>:   CUB DeviceReduce::Sum of n floats through library_call, its
//                                  temporary a stream_buffer on the stream, vs raw CUB with
//                                  cudaMallocAsync / cudaFreeAsync
//   library_call_thrust_reduce/<n>: thrust::reduce with umsync::exec_policy_nosync vs
//                                  thrust::cuda::par_nosync(allocator).on(raw stream) whose
//                                  allocator calls cudaMallocAsync / cudaFreeAsync
// Both sides do the same work on the same memory; the ratio umsync/raw is the wrappers' cost.
// Target: within 1.02 (the checks are compile-time; a release build adds no call).
#include "support/timing.cuh"

#include <umsync/exec_policy.hpp>
#include <umsync/library_call.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cub/device/device_reduce.cuh>
#include <cublas_v2.h>
#include <thrust/device_malloc_allocator.h>
#include <thrust/reduce.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace {

struct compute {};

void check_blas(cublasStatus_t status)
{
  if (status != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "library_call_bench: cuBLAS failed: %s\n", cublasGetStatusString(status));
    std::abort();
  }
}

/// Fills `count` floats at `p` with a value whose sums stay finite.
__global__ void fill(float* p, std::size_t count)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    p[i] = 1.0F / float(1 + (i & 255U));
  }
}

void fill_on(float* p, std::size_t count, cudaStream_t stream)
{
  fill<<<264, 256, 0, stream>>>(p, count);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
}

void library_call_sgemm(benchmark::State& state)
{
  auto const n = static_cast<int>(state.range(0));
  auto const elements = std::size_t(n) * std::size_t(n);
  umsync::stream<compute> s;
  umsync::stream_buffer<float, compute> a(elements, s);
  umsync::stream_buffer<float, compute> b(elements, s);
  umsync::stream_buffer<float, compute> c(elements, s);
  fill_on(a.data(), elements, s.get());
  fill_on(b.data(), elements, s.get());
  cublasHandle_t blas = nullptr;
  check_blas(cublasCreate(&blas));
  check_blas(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
  float const one = 1.0F;
  float const zero = 0.0F;
  int const calls = n <= 512 ? 100 : 4;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t raw) {
            for (int i = 0; i < calls; ++i) {
              check_blas(cublasSetStream(blas, raw));
              check_blas(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a.data(), n, b.data(), n, &zero,
                                     c.data(), n));
            }
          });
        },
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t) {
            for (int i = 0; i < calls; ++i) {
              check_blas(umsync::library_call(
                  s,
                  [&](cudaStream_t raw, float const* pa, float const* pb, float* pc) {
                    cublasStatus_t const set = cublasSetStream(blas, raw);
                    return set != CUBLAS_STATUS_SUCCESS
                               ? set
                               : cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, pa, n, pb, n, &zero, pc, n);
                  },
                  std::as_const(a), std::as_const(b), c));
            }
          });
        });
  }
  compare.report(calls);
  state.counters["gflops"] = benchmark::Counter(2.0 * double(n) * n * n * calls * double(state.iterations()) * 1e-9,
                                                benchmark::Counter::kIsRate);
  s.synchronize();
  static_cast<void>(cublasDestroy(blas));
}

void library_call_cub_reduce(benchmark::State& state)
{
  auto const count = static_cast<std::size_t>(state.range(0));
  umsync::stream<compute> s;
  umsync::stream_buffer<float, compute> in(count, s);
  umsync::stream_buffer<float, compute> out(1, s);
  fill_on(in.data(), count, s.get());
  auto const items = static_cast<std::int64_t>(count);
  std::size_t temp_bytes = 0;
  UMSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, temp_bytes, in.data(), out.data(), items, s.get()));
  int const calls = count <= (std::size_t{1} << 16) ? 100 : 4;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t raw) {
            for (int i = 0; i < calls; ++i) {
              void* temp = nullptr;
              UMSYNC_CUDA_CHECK(cudaMallocAsync(&temp, temp_bytes, raw));
              UMSYNC_CUDA_CHECK(cub::DeviceReduce::Sum(temp, temp_bytes, in.data(), out.data(), items, raw));
              UMSYNC_CUDA_CHECK(cudaFreeAsync(temp, raw));
            }
          });
        },
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t) {
            for (int i = 0; i < calls; ++i) {
              umsync::stream_buffer<std::byte, compute> temp(temp_bytes, s);
              UMSYNC_CUDA_CHECK(umsync::library_call(
                  s,
                  [&](cudaStream_t raw, std::byte* t, float const* from, float* to) {
                    std::size_t bytes = temp_bytes;
                    return cub::DeviceReduce::Sum(t, bytes, from, to, items, raw);
                  },
                  temp, std::as_const(in), out));
            }
          });
        });
  }
  compare.report(calls);
  s.synchronize();
}

/// The raw baseline's Thrust allocator: cudaMallocAsync / cudaFreeAsync on one stream.
template <class T>
struct raw_async_allocator : thrust::device_malloc_allocator<T> {
  using pointer = typename thrust::device_malloc_allocator<T>::pointer;
  template <class U>
  struct rebind {
    using other = raw_async_allocator<U>;
  };
  explicit raw_async_allocator(cudaStream_t s) : stream(s) {}
  template <class U>
  raw_async_allocator(raw_async_allocator<U> const& other) : stream(other.stream)  // NOLINT: Thrust rebinds
  {}
  pointer allocate(std::size_t count)
  {
    void* p = nullptr;
    UMSYNC_CUDA_CHECK(cudaMallocAsync(&p, count * sizeof(T), stream));
    return thrust::device_pointer_cast(static_cast<T*>(p));
  }
  void deallocate(pointer p, std::size_t) noexcept
  {
    static_cast<void>(cudaFreeAsync(thrust::raw_pointer_cast(p), stream));
  }
  cudaStream_t stream;
};

void library_call_thrust_reduce(benchmark::State& state)
{
  auto const count = static_cast<std::size_t>(state.range(0));
  umsync::stream<compute> s;
  umsync::stream_buffer<float, compute> in(count, s);
  fill_on(in.data(), count, s.get());
  float const* const first = in.data();
  int const calls = count <= (std::size_t{1} << 16) ? 100 : 4;
  float sink = 0;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t raw) {
            for (int i = 0; i < calls; ++i) {
              sink += thrust::reduce(thrust::cuda::par_nosync(raw_async_allocator<char>(raw)).on(raw), first,
                                     first + count, 0.0F);
            }
          });
        },
        [&] {
          return umsync_bench::time_on_device(s.get(), [&](cudaStream_t) {
            for (int i = 0; i < calls; ++i) {
              sink += thrust::reduce(umsync::exec_policy_nosync(s), first, first + count, 0.0F);
            }
          });
        });
  }
  benchmark::DoNotOptimize(sink);
  compare.report(calls);
  s.synchronize();
}

}  // namespace

BENCHMARK(library_call_sgemm)->Arg(256)->Arg(4096)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(library_call_cub_reduce)->Arg(1 << 12)->Arg(1 << 26)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(library_call_thrust_reduce)->Arg(1 << 12)->Arg(1 << 26)->UseManualTime()->Unit(benchmark::kMicrosecond);
