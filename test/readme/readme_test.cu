// The C++ blocks of README.md, compiled as written and run on the GPU (docs/testing.md, "The README
// is tested"). test/scripts/readme_blocks.py writes block N of the README to readme_block_<N>.hpp
// in the build folder (an edit of the README rebuilds this file); each test case declares what
// its blocks name but do not define, every such line marked "fill-in", includes the blocks in
// README order and then checks what they did. host.readme_blocks fails when a README block is
// included by no test case (or a test case includes a block that is not there); the blocks
// marked expect-compile-error are compiled by compile_fail.readme_blocks (readme_compile_fail.cu).
//
// The headers the blocks include are included here first: an #include inside a function body
// works only for a header already included (its #pragma once makes it empty there).
#include <umsync/nccl.hpp>
#include <umsync/telemetry/doctest_gate.hpp>
#include <umsync/timed_event.hpp>
#include <umsync/umsync.hpp>

#include <doctest/doctest.h>

#include <chrono>
#include <cstddef>
#include <iostream>
#include <vector>

namespace {

// fill-in: the README's producer kernel, in[i] + 1.
__global__ void produce(float const* in, float* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i] + 1.0F;
  }
}

// fill-in: the README's consumer kernel, 2 * in[i].
__global__ void consume(float const* in, float* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = 2.0F * in[i];
  }
}

// fill-in: the phase block's forward kernel. It gets no element count (it covers
// phase_elements) and leaves the weights alone: the block never initializes them.
constexpr std::size_t phase_elements = std::size_t{1} << 16;
__global__ void fwd(float const* /*weights*/, float* grads)
{
  std::size_t const i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < phase_elements) {
    grads[i] = static_cast<float>(i % 7);
  }
}

// Helpers of the fill-ins (not named by the README).
__global__ void fill_pattern(float* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = static_cast<float>(i % 5);
  }
}

/// Device memory from cudaMalloc, filled with i % 5 (the blocks' d_in, d_mid, d_out).
class device_floats {
 public:
  explicit device_floats(std::size_t n)
  {
    UMSYNC_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(float)));
    fill_pattern<<<64, 256>>>(data_, n);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  }
  device_floats(device_floats const&) = delete;
  device_floats& operator=(device_floats const&) = delete;
  ~device_floats() { static_cast<void>(cudaFree(data_)); }
  [[nodiscard]] float* get() const noexcept { return data_; }

 private:
  float* data_ = nullptr;
};

/// The device's `n` floats at `device`, once all work on the device has finished.
std::vector<float> to_host(float const* device, std::size_t n)
{
  std::vector<float> host(n);
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  UMSYNC_CUDA_CHECK(cudaMemcpy(host.data(), device, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

/// How many of `got` differ from `want(i)`.
template <class Want>
std::size_t count_wrong(std::vector<float> const& got, Want want)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    wrong += got[i] != want(i) ? 1 : 0;
  }
  return wrong;
}

}  // namespace

TEST_CASE("README: typed streams, an event edge and timed events (block 1)")
{
  std::size_t const n = std::size_t{1} << 20;  // fill-in
  dim3 const grid{264};                        // fill-in
  dim3 const block{256};                       // fill-in
  device_floats const in(n);                   // fill-in
  device_floats const middle(n);               // fill-in
  device_floats const result(n);               // fill-in
  float* const d_in = in.get();                // fill-in
  float* const d_mid = middle.get();           // fill-in
  float* const d_out = result.get();           // fill-in

#include "readme_block_1.hpp"

  // consume ran after produce (the event edge), and the timed events measured it.
  CHECK(ms.count() >= 0.0F);
  CHECK(count_wrong(to_host(d_out, n), [](std::size_t i) { return 2.0F * (static_cast<float>(i % 5) + 1.0F); }) == 0);
}

TEST_CASE("README: memory that lives on a stream, handed over by transfer (blocks 2 and 4)")
{
  struct producer {};                          // fill-in (block 1's tags)
  struct consumer {};                          // fill-in
  umsync::stream<producer> ps;                 // fill-in (block 1's streams)
  umsync::stream<consumer> cs;                 // fill-in
  std::size_t const n = std::size_t{1} << 20;  // fill-in
  device_floats const in(n);                   // fill-in
  device_floats const result(n);               // fill-in
  float* const d_in = in.get();                // fill-in
  float* const d_out = result.get();           // fill-in

#include "readme_block_2.hpp"
  // Block 3 (the same launch without the edge) must not compile: readme_compile_fail.cu.
#include "readme_block_4.hpp"

  CHECK(count_wrong(to_host(d_out, n), [](std::size_t i) { return 2.0F * (static_cast<float>(i % 5) + 1.0F); }) == 0);
}

TEST_CASE("README: managed memory by phase, and the CI gate on migrations (block 5)")
{
  umsync::stream<> s;                                          // fill-in
  std::size_t const n = phase_elements;                        // fill-in
  umsync::launch_config const cfg{.grid = 256, .block = 256};  // fill-in: 256 x 256 = phase_elements
  umsync::stream_buffer<float> scratch(n, s);                  // fill-in
  auto step = [&] {                                            // fill-in: a step on device memory
    umsync::launch(s, cfg, fill_pattern, scratch, n);
    s.synchronize();
  };

#include "readme_block_5.hpp"

  // The forward phase's kernel wrote the gradients (read on the host once it has finished).
  s.synchronize();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += g[i] != static_cast<float>(i % 7) ? 1 : 0;
  }
  CHECK(wrong == 0);
  CHECK(c.gpu_page_faults <= 4);
}

TEST_CASE("README: NCCL on typed streams (block 6)")
{
  // init_all() makes one rank per visible GPU, and the block all-reduces on rank 0 alone: with
  // several GPUs every rank would have to take part (in an umsync::nccl::group).
  if (umsync::probe_devices().count != 1) {
    MESSAGE("not run: the README's NCCL block runs one rank; run with CUDA_VISIBLE_DEVICES=0");
    return;
  }
  struct compute {};                                                                   // fill-in
  struct communication {};                                                             // fill-in
  umsync::stream<compute> compute_stream;                                              // fill-in
  umsync::stream<communication> comm_stream;                                           // fill-in
  umsync::stream_edge to_comm(compute_stream, comm_stream);                            // fill-in
  umsync::stream_edge to_compute(comm_stream, compute_stream);                         // fill-in
  std::size_t const n = std::size_t{1} << 16;                                          // fill-in
  umsync::stream_buffer<float, compute> grads(n, compute_stream);                      // fill-in
  umsync::launch(compute_stream, {.grid = 64, .block = 256}, fill_pattern, grads, n);  // fill-in

#include "readme_block_6.hpp"

  // One rank: the sum is the input, back on the compute stream.
  CHECK(comms.size() == 1);
  CHECK(count_wrong(to_host(reduced.data(), n), [](std::size_t i) { return static_cast<float>(i % 5); }) == 0);
}
