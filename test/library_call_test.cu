// GPU tests of umsync/library_call.hpp: cuBLAS, CUB and Thrust called with umsync streams and
// memory, each result against a host reference on fresh random inputs, outputs poisoned.
#include "support/gpu_test.hpp"

#include <umsync/cublas.hpp>
#include <umsync/exec_policy.hpp>
#include <umsync/library_call.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cublas_v2.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {
struct compute {};

/// A cuBLAS handle for one test, made before the test's memory baseline (its modules and
/// workspace are cuBLAS's own).
class blas_handle {
 public:
  blas_handle()
  {
    REQUIRE(cublasCreate(&handle_) == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH) == CUBLAS_STATUS_SUCCESS);  // FP32, no TF32
  }
  blas_handle(blas_handle const&) = delete;
  blas_handle& operator=(blas_handle const&) = delete;
  ~blas_handle() { static_cast<void>(cublasDestroy(handle_)); }
  [[nodiscard]] cublasHandle_t get() const noexcept { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

/// One m x n x k SGEMM on zeroed memory, on `s`, waited for.
void warm_up_sgemm(blas_handle const& blas, umsync::stream<compute> const& s, int m, int n, int k)
{
  umsync::stream_buffer<float, compute> a(std::size_t(m) * k, s);
  umsync::stream_buffer<float, compute> b(std::size_t(k) * n, s);
  umsync::stream_buffer<float, compute> c(std::size_t(m) * n, s);
  auto const zero_fill = [](cudaStream_t raw, float* p, std::size_t bytes) {
    return cudaMemsetAsync(p, 0, bytes, raw);
  };
  REQUIRE(umsync::library_call(s, zero_fill, a, a.size_bytes()) == cudaSuccess);
  REQUIRE(umsync::library_call(s, zero_fill, b, b.size_bytes()) == cudaSuccess);
  float const one = 1.0F;
  float const zero = 0.0F;
  REQUIRE(umsync::library_call(
              s,
              [&](cudaStream_t raw, float const* pa, float const* pb, float* pc) {
                cublasStatus_t const set = cublasSetStream(blas.get(), raw);
                return set != CUBLAS_STATUS_SUCCESS ? set
                                                    : cublasSgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one,
                                                                  pa, m, pb, k, &zero, pc, m);
              },
              a, b, c) == CUBLAS_STATUS_SUCCESS);
  s.synchronize();
}

/// `values` random floats in [-1, 1) from `rng`.
std::vector<float> random_floats(std::mt19937_64& rng, std::size_t values)
{
  std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
  std::vector<float> out(values);
  for (auto& x : out) {
    x = unit(rng);
  }
  return out;
}

/// Copies `host` into a pinned buffer, then onto the device on `s`.
template <class T>
umsync::stream_buffer<T, compute> upload(std::vector<T> const& host, umsync::stream<compute> const& s,
                                         umsync::pinned_buffer<T>& staging)
{
  std::copy(host.begin(), host.end(), staging.begin());
  umsync::stream_buffer<T, compute> device(host.size(), s);
  umsync::copy_async(device, staging, s);
  return device;
}

}  // namespace

TEST_CASE("library_call: cuBLAS SGEMM on typed buffers matches the host")
{
  blas_handle const blas;
  auto rng = umsync_test::make_rng();
  int const m = 64 + static_cast<int>(rng() % 64);
  int const n = 64 + static_cast<int>(rng() % 64);
  int const k = 64 + static_cast<int>(rng() % 64);
  umsync::stream<compute> const s;
  // cuBLAS keeps what its first GEMM of a shape loads (the kernel it picks, the handle's
  // workspace) until the process or the handle ends: one GEMM of the same shape on the same
  // stream before the baseline, so that the baseline counts this test's memory only (measured
  // on the H200: 24 MiB held past the test without it).
  warm_up_sgemm(blas, s, m, n, k);
  umsync_test::memory_baseline const baseline;
  std::vector<float> const a = random_floats(rng, std::size_t(m) * k);  // column-major m x k
  std::vector<float> const b = random_floats(rng, std::size_t(k) * n);  // k x n
  umsync::pinned_buffer<float> a_host(a.size());
  umsync::pinned_buffer<float> b_host(b.size());
  umsync::pinned_buffer<float> c_host(std::size_t(m) * n);
  std::fill(c_host.begin(), c_host.end(), std::nanf(""));  // poison
  {
    auto const a_dev = upload(a, s, a_host);
    auto const b_dev = upload(b, s, b_host);
    umsync::stream_buffer<float, compute> c_dev(c_host.size(), s);
    umsync::copy_async(c_dev, c_host, s);  // the poison on the device too
    float const one = 1.0F;
    float const zero = 0.0F;
    cublasStatus_t const status = umsync::library_call(
        s,
        [&](cudaStream_t raw, float const* pa, float const* pb, float* pc) {
          cublasStatus_t const set = cublasSetStream(blas.get(), raw);
          return set != CUBLAS_STATUS_SUCCESS
                     ? set
                     : cublasSgemm(blas.get(), CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, pa, m, pb, k, &zero, pc, m);
        },
        a_dev, b_dev, c_dev);
    CHECK(status == CUBLAS_STATUS_SUCCESS);
    umsync::copy_async(c_host, c_dev, s);
    s.synchronize();
  }
  std::size_t wrong = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double want = 0;
      for (int l = 0; l < k; ++l) {
        want += double(a[std::size_t(l) * m + i]) * double(b[std::size_t(j) * k + l]);
      }
      double const got = c_host[std::size_t(j) * m + i];
      wrong += std::abs(got - want) <= 1e-4 + 1e-4 * std::abs(want) ? 0 : 1;  // NaN counts as wrong
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("bound_handle: cuBLAS SGEMM in one line matches the host, also after other code moved the handle")
{
  blas_handle const blas;
  auto rng = umsync_test::make_rng();
  int const m = 64 + static_cast<int>(rng() % 64);
  int const n = 64 + static_cast<int>(rng() % 64);
  int const k = 64 + static_cast<int>(rng() % 64);
  umsync::stream<compute> const s;
  umsync::stream<> const elsewhere;
  warm_up_sgemm(blas, s, m, n, k);  // see the SGEMM test above: cuBLAS's per-shape state first
  umsync_test::memory_baseline const baseline;
  std::vector<float> const a = random_floats(rng, std::size_t(m) * k);
  std::vector<float> const b = random_floats(rng, std::size_t(k) * n);
  umsync::pinned_buffer<float> a_host(a.size());
  umsync::pinned_buffer<float> b_host(b.size());
  umsync::pinned_buffer<float> c_host(std::size_t(m) * n);
  umsync::pinned_buffer<float> d_host(std::size_t(m) * n);
  std::fill(c_host.begin(), c_host.end(), std::nanf(""));  // poison
  std::fill(d_host.begin(), d_host.end(), std::nanf(""));
  {
    auto const a_dev = upload(a, s, a_host);
    auto const b_dev = upload(b, s, b_host);
    umsync::stream_buffer<float, compute> c_dev(c_host.size(), s);
    umsync::stream_buffer<float, compute> d_dev(d_host.size(), s);
    umsync::copy_async(c_dev, c_host, s);  // the poison on the device too
    umsync::copy_async(d_dev, d_host, s);
    float const one = 1.0F;
    float const zero = 0.0F;
    umsync::bound_handle const bound(blas.get(), s);
    static_assert(std::is_same_v<decltype(bound), umsync::bound_handle<compute, cublasHandle_t> const>);
    cublasStatus_t const first = bound.call(cublasSgemm, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a_dev, m, b_dev, k,
                                            &zero, c_dev, m);
    CHECK(first == CUBLAS_STATUS_SUCCESS);
    cudaStream_t current = nullptr;
    REQUIRE(cublasGetStream(blas.get(), &current) == CUBLAS_STATUS_SUCCESS);
    CHECK(current == s.get());
    // Other code moves the handle to another stream; the next bound call moves it back.
    REQUIRE(cublasSetStream(blas.get(), elsewhere.get()) == CUBLAS_STATUS_SUCCESS);
    cublasStatus_t const second = bound.call(cublasSgemm, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a_dev, m, b_dev, k,
                                             &zero, d_dev, m);
    CHECK(second == CUBLAS_STATUS_SUCCESS);
    REQUIRE(cublasGetStream(blas.get(), &current) == CUBLAS_STATUS_SUCCESS);
    CHECK(current == s.get());
    umsync::copy_async(c_host, c_dev, s);
    umsync::copy_async(d_host, d_dev, s);
    s.synchronize();
  }
  std::size_t wrong = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < m; ++i) {
      double want = 0;
      for (int l = 0; l < k; ++l) {
        want += double(a[std::size_t(l) * m + i]) * double(b[std::size_t(j) * k + l]);
      }
      for (float const got : {c_host[std::size_t(j) * m + i], d_host[std::size_t(j) * m + i]}) {
        wrong += std::abs(double(got) - want) <= 1e-4 + 1e-4 * std::abs(want) ? 0 : 1;  // NaN counts as wrong
      }
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("library_call: the callable's result comes back as it is, and arguments pass through")
{
  umsync::stream<compute> const s;
  umsync::stream_buffer<std::uint32_t, compute> x(16, s);
  // A function object with one operator(): its parameters are read as a lambda's are.
  struct count_bytes {
    std::size_t operator()(cudaStream_t, std::uint32_t const* p, std::size_t n, std::string const& label) const
    {
      return p == nullptr ? 0 : n * sizeof(*p) + label.size();
    }
  };
  CHECK(umsync::library_call(s, count_bytes{}, x, x.size(), std::string("abc")) == 16 * 4 + 3);
  // A generic callable gets memory as a pointer to its elements (const for const memory).
  auto const generic = [](cudaStream_t raw, auto const* p, auto* q) {
    static_assert(std::is_same_v<decltype(p), std::uint32_t const*>);
    return raw != nullptr && p == q;
  };
  umsync::stream_buffer<std::uint32_t, compute> const& read_only = x;
  CHECK(umsync::library_call(s, generic, read_only, x));
  // A raw cudaError_t-returning call: memset through the library path.
  CHECK(umsync::library_call(
            s, [](cudaStream_t raw, std::uint32_t* p, std::size_t bytes) { return cudaMemsetAsync(p, 0, bytes, raw); },
            x, x.size_bytes()) == cudaSuccess);
  s.synchronize();
}

TEST_CASE("library_call: CUB DeviceReduce::Sum and DeviceScan::InclusiveSum, temporaries on the same stream")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 20) + (rng() % 5000);
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync::stream<compute> const s;
  umsync::pinned_buffer<std::uint32_t> in_host(n);
  umsync::pinned_buffer<std::uint32_t> scan_host(n);
  umsync::pinned_buffer<std::uint32_t> sum_host(1);
  std::fill(scan_host.begin(), scan_host.end(), 0xDEADBEEFU);  // poison
  sum_host[0] = 0xDEADBEEFU;
  {
    auto const in = upload(input, s, in_host);
    umsync::stream_buffer<std::uint32_t, compute> scan(n, s);
    umsync::stream_buffer<std::uint32_t, compute> sum(1, s);
    umsync::copy_async(scan, scan_host, s);
    umsync::copy_async(sum, sum_host, s);
    auto const n_items = static_cast<std::int64_t>(n);

    // Each call asks CUB for its temporary size first (a null buffer), then allocates it
    // stream-ordered on the same stream and frees it there when the buffer goes.
    auto const reduce = [&](cudaStream_t raw, std::byte* temp, std::size_t& bytes, std::uint32_t const* from,
                            std::uint32_t* to) { return cub::DeviceReduce::Sum(temp, bytes, from, to, n_items, raw); };
    std::size_t reduce_bytes = 0;
    REQUIRE(umsync::library_call(s, reduce, umsync::device_span<std::byte, compute>{}, reduce_bytes, in, sum) ==
            cudaSuccess);
    {
      umsync::stream_buffer<std::byte, compute> temp(reduce_bytes, s);
      CHECK(umsync::library_call(s, reduce, temp, reduce_bytes, in, sum) == cudaSuccess);
    }

    auto const inclusive_scan = [&](cudaStream_t raw, std::byte* temp, std::size_t& bytes, std::uint32_t const* from,
                                    std::uint32_t* to) {
      return cub::DeviceScan::InclusiveSum(temp, bytes, from, to, n_items, raw);
    };
    std::size_t scan_bytes = 0;
    REQUIRE(umsync::library_call(s, inclusive_scan, umsync::device_span<std::byte, compute>{}, scan_bytes, in, scan) ==
            cudaSuccess);
    {
      umsync::stream_buffer<std::byte, compute> temp(scan_bytes, s);
      CHECK(umsync::library_call(s, inclusive_scan, temp, scan_bytes, in, scan) == cudaSuccess);
    }
    umsync::copy_async(scan_host, scan, s);
    umsync::copy_async(sum_host, sum, s);
    s.synchronize();
  }
  std::uint32_t running = 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    running += input[i];  // wraps modulo 2^32, as the device does
    wrong += scan_host[i] != running ? 1 : 0;
  }
  CHECK(wrong == 0);
  CHECK(sum_host[0] == running);
}

TEST_CASE("library_call: Thrust sort and reduce with umsync's policy, made from the raw stream")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = (std::size_t{1} << 18) + (rng() % 5000);
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync::stream<compute> const s;
  umsync::pinned_buffer<std::uint32_t> staging(n);
  umsync::pinned_buffer<std::uint32_t> sorted_host(n);
  std::uint64_t sum = 0;
  {
    auto keys = upload(input, s, staging);
    sum = umsync::library_call(
        s,
        [](cudaStream_t raw, std::uint32_t* first, std::size_t count) {
          umsync::stream_view<compute> const on{raw};
          thrust::sort(umsync::exec_policy_nosync(on), first, first + count);
          return thrust::reduce(umsync::exec_policy(on), first, first + count, std::uint64_t{0});
        },
        keys, keys.size());
    std::fill(sorted_host.begin(), sorted_host.end(), 0xDEADBEEFU);  // poison
    umsync::copy_async(sorted_host, keys, s);
    s.synchronize();
  }
  std::vector<std::uint32_t> want = input;
  std::sort(want.begin(), want.end());
  std::uint64_t want_sum = 0;
  for (std::uint32_t const x : input) {
    want_sum += x;
  }
  CHECK(std::equal(want.begin(), want.end(), sorted_host.begin()));
  CHECK(sum == want_sum);
}
