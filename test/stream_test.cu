// GPU tests of umsync/stream.hpp (stream_view's: stream_view_test.cu).
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/event.hpp>
#include <umsync/stream.hpp>

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace {
struct producer {};
struct consumer {};
}  // namespace

TEST_CASE("a stream is non-blocking by default, blocking on request")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<producer> const s;
  unsigned flags = 0;
  UMSYNC_CUDA_CHECK(cudaStreamGetFlags(s.get(), &flags));
  CHECK(flags == cudaStreamNonBlocking);
  umsync::stream<> const blocking{{.non_blocking = false}};
  UMSYNC_CUDA_CHECK(cudaStreamGetFlags(blocking.get(), &flags));
  CHECK(flags == cudaStreamDefault);
}

TEST_CASE("priorities inside the device range are kept, outside throw and leave others usable")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream_priority_range const range = umsync::stream_priorities();
  umsync::stream<> const urgent{{.priority = range.greatest}};
  CHECK(urgent.priority() == range.greatest);
  CHECK_THROWS_AS(umsync::stream<>({.priority = range.greatest - 1}), umsync::out_of_range);
  CHECK_THROWS_AS(umsync::stream<>({.priority = range.least + 1}), umsync::out_of_range);
  urgent.synchronize();
  CHECK(urgent.ready());
}

TEST_CASE("a moved-from stream refuses use instead of falling back to the legacy stream")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<producer> a;
  cudaStream_t const handle = a.get();
  umsync::stream<producer> b = std::move(a);
  CHECK(b.get() == handle);
  CHECK_THROWS_AS(static_cast<void>(a.get()), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  CHECK_THROWS_AS(a.synchronize(), umsync::usage_error);             // NOLINT(bugprone-use-after-move)
  umsync::stream<producer> c;
  c = std::move(b);  // the old stream of c is destroyed here
  CHECK(c.get() == handle);
  c.synchronize();
}

TEST_CASE("ready() is false while work is queued and true once it is done")
{
  umsync::stream<> const s;
  umsync_test::spin_for<<<1, 1, 0, s.view()>>>(50'000'000);  // 50 ms
  umsync_test::check_launch("spin_for");
  CHECK_FALSE(s.ready());
  s.synchronize();
  CHECK(s.ready());
}

TEST_CASE("an event edge orders a consumer stream after a slow producer stream")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 22;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const key = static_cast<std::uint32_t>(rng());

  std::uint32_t* d_in = nullptr;
  std::uint32_t* d_mid = nullptr;
  std::uint32_t* d_out = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(std::uint32_t)));
  UMSYNC_CUDA_CHECK(cudaMalloc(&d_mid, n * sizeof(std::uint32_t)));
  UMSYNC_CUDA_CHECK(cudaMalloc(&d_out, n * sizeof(std::uint32_t)));
  {
    umsync::stream<producer> const ps;
    umsync::stream<consumer> const cs;
    umsync::event ready;
    UMSYNC_CUDA_CHECK(cudaMemcpy(d_in, input.data(), n * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    // Poison what the consumer reads and writes, so an overtaking consumer is visible.
    UMSYNC_CUDA_CHECK(cudaMemset(d_mid, 0xA5, n * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMemset(d_out, 0x5A, n * sizeof(std::uint32_t)));

    umsync_test::delayed_affine<<<264, 256, 0, ps.view()>>>(d_in, d_mid, n, 20'000'000);  // 20 ms late
    umsync_test::check_launch("delayed_affine");
    ready.record(ps);
    cs.wait(ready);
    umsync_test::xor_with<<<264, 256, 0, cs.view()>>>(d_mid, d_out, n, key);
    umsync_test::check_launch("xor_with");
    cs.synchronize();
  }
  std::vector<std::uint32_t> out(n);
  UMSYNC_CUDA_CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += out[i] != ((3U * input[i] + 1U) ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
  UMSYNC_CUDA_CHECK(cudaFree(d_in));
  UMSYNC_CUDA_CHECK(cudaFree(d_mid));
  UMSYNC_CUDA_CHECK(cudaFree(d_out));
}
