// GPU tests of sync/wgmma.hpp (sm_90a: built into umsync_gpu_sm90a_tests): one warpgroup
// computes D (64 x N, f32) = A (64 x K) * B (N x K)^T from bf16 or f16 tiles that tensor maps
// load with the 128-byte swizzle into a two-stage ring, each stage's A and B box on one barrier
// phase, the group's tiles given back by its wait and released together before the refill. Once
// waiting for each group at once (wait<0>), once keeping one group in flight (wait<1>), for N =
// 64, 128 and 256; D is read through the accumulator's fragment layout and compared with a
// double-precision product of the same inputs on the host.
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/wgmma.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

namespace {

using umsync::barrier_scope;
using umsync::tensor_swizzle;

template <class T>
using a_map = umsync::tensor_map<T const, umsync::box<64, 64>, tensor_swizzle::bytes_128>;
template <class T, std::size_t N>
using b_map = umsync::tensor_map<T const, umsync::box<64, N>, tensor_swizzle::bytes_128>;

template <class T, std::size_t N>
struct ring {
  typename a_map<T>::shared_tile_type a[2];
  typename b_map<T, N>::shared_tile_type b[2];
};

template <class T, std::size_t N, int Pending>
__global__ void __launch_bounds__(128)
    multiply(a_map<T> const __grid_constant__ am, b_map<T, N> const __grid_constant__ bm, int k_tiles, float* d)
{
  extern __shared__ unsigned char dynamic[];
  auto& stages = *reinterpret_cast<ring<T, N>*>((reinterpret_cast<std::uintptr_t>(dynamic) + 1023U) &
                                                ~std::uintptr_t(1023U));
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  bool const issuer = threadIdx.x == 0;
  if (issuer) {
    for (int k = 0; k < 2 && k < k_tiles; ++k) {
      umsync::bulk_fill(bars[k])
          .load(stages.a[k].first_use(), am.box_at(k * 64, 0))
          .load(stages.b[k].first_use(), bm.box_at(k * 64, 0))
          .arrive();
    }
  }
  umsync::wgmma_accumulator<N> zeros;
  auto mma = umsync::start_wgmma(std::move(zeros));
  // Gives stage s's tiles back and refills them with K tile `next`, if there is one.
  auto refill = [&](auto&& a_done, auto&& b_done, unsigned s, int next) {
    auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_done), std::move(b_done));
    if (issuer && next < k_tiles) {
      umsync::bulk_fill(bars[s])
          .load(std::move(a_empty), am.box_at(next * 64, 0))
          .load(std::move(b_empty), bm.box_at(next * 64, 0))
          .arrive();
    }
  };
  if constexpr (Pending == 0) {
    for (int k = 0; k < k_tiles; ++k) {
      unsigned const s = unsigned(k) & 1U;
      auto [a, b] = bars.wait(s, phases, stages.a[s], stages.b[s]);
      auto [a_done, b_done] = mma.multiply(std::move(a), std::move(b)).template wait<0>(mma);
      refill(std::move(a_done), std::move(b_done), s, k + 2);
    }
  } else {
    auto [a0, b0] = bars.wait(0, phases, stages.a[0], stages.b[0]);
    auto previous = mma.multiply(std::move(a0), std::move(b0));
    for (int k = 1; k < k_tiles; ++k) {
      unsigned const s = unsigned(k) & 1U;
      auto [a, b] = bars.wait(s, phases, stages.a[s], stages.b[s]);
      auto group = mma.multiply(std::move(a), std::move(b));
      auto [a_done, b_done] = std::move(previous).template wait<1>(mma);  // group k - 1 is done
      refill(std::move(a_done), std::move(b_done), s ^ 1U, k + 1);
      previous = std::move(group);
    }
    auto [a_last, b_last] = std::move(previous).template wait<0>(mma);
    refill(std::move(a_last), std::move(b_last), unsigned(k_tiles - 1) & 1U, k_tiles + 1);
  }
  auto const result = std::move(mma).drain();
  for (std::size_t i = 0; i < result.size; ++i) {
    d[std::size_t(result.row(i)) * N + result.column(i)] = result[i];
  }
}

template <class T>
T from_float(float x)
{
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16(x);
  } else {
    return __float2half(x);
  }
}
template <class T>
float to_float(T x)
{
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(x);
  } else {
    return __half2float(x);
  }
}

// Runs one product of random inputs; returns the largest |D - reference| / (|reference| + 1).
template <class T, std::size_t N, int Pending>
double worst_error(int k_tiles, std::mt19937_64& rng)
{
  int const k = 64 * k_tiles;
  std::uniform_real_distribution<float> uniform(-1.0F, 1.0F);
  std::vector<T> a(std::size_t(64) * k);
  std::vector<T> b(N * std::size_t(k));
  for (auto& x : a) {
    x = from_float<T>(uniform(rng));
  }
  for (auto& x : b) {
    x = from_float<T>(uniform(rng));
  }
  umsync_test::device_words a_device(a.size() / 2);
  umsync_test::device_words b_device(b.size() / 2);
  umsync_test::device_words d_device(64 * N);
  UMSYNC_CUDA_CHECK(cudaMemcpy(a_device.get(), a.data(), a.size() * sizeof(T), cudaMemcpyHostToDevice));
  UMSYNC_CUDA_CHECK(cudaMemcpy(b_device.get(), b.data(), b.size() * sizeof(T), cudaMemcpyHostToDevice));
  d_device.poison();
  auto const am = a_map<T>::encode(reinterpret_cast<T const*>(a_device.get()), {std::uint64_t(k), 64});
  auto const bm = b_map<T, N>::encode(reinterpret_cast<T const*>(b_device.get()), {std::uint64_t(k), N});
  std::size_t const shared = sizeof(ring<T, N>) + 1024;
  auto kernel = multiply<T, N, Pending>;
  UMSYNC_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(shared)));
  kernel<<<1, 128, shared>>>(am, bm, k_tiles, reinterpret_cast<float*>(d_device.get()));
  umsync_test::check_launch("multiply");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const words = d_device.download();
  std::vector<float> d(words.size());
  std::memcpy(d.data(), words.data(), d.size() * sizeof(float));
  double worst = 0.0;
  for (std::size_t row = 0; row < 64; ++row) {
    for (std::size_t column = 0; column < N; ++column) {
      double reference = 0.0;
      for (int i = 0; i < k; ++i) {
        reference += double(to_float(a[row * k + i])) * double(to_float(b[column * k + i]));
      }
      double const got = d[row * N + column];
      double const error = std::isfinite(got) ? std::fabs(got - reference) / (std::fabs(reference) + 1.0) : 1e30;
      worst = error > worst ? error : worst;
    }
  }
  return worst;
}

bool device_is_sm90a_capable()
{
  int device = 0;
  int major = 0;
  int minor = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  return major == 9 && minor == 0;
}

}  // namespace

TEST_CASE("wgmma through typed tiles and groups: D = A * B^T exact to f32 accumulation, bf16 and f16, N 64..256")
{
  if (!device_is_sm90a_capable()) {
    MESSAGE("wgmma needs a device of compute capability 9.0 (sm_90a code)");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  // f32 accumulation of products of values in [-1, 1] over K = 64..320: errors near 1e-6.
  constexpr double tolerance = 1e-4;
  CHECK(worst_error<__nv_bfloat16, 128, 0>(5, rng) < tolerance);
  CHECK(worst_error<__nv_bfloat16, 128, 1>(5, rng) < tolerance);
  CHECK(worst_error<__nv_bfloat16, 64, 1>(1, rng) < tolerance);
  CHECK(worst_error<__nv_bfloat16, 256, 1>(4, rng) < tolerance);
  CHECK(worst_error<__half, 128, 0>(3, rng) < tolerance);
  CHECK(worst_error<__half, 256, 1>(2, rng) < tolerance);
}
