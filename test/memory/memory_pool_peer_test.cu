// GPU tests of pool peer access (memory_pool_ref::set_peer_access) with a system-scope signal
// in the peer-mapped memory: a kernel on one GPU writes into a pool of another GPU and posts a
// flag there; a kernel on the pool's GPU waits for the flag (bounded) and reads what was
// written. Needs two GPUs that can reach each other; says why and returns otherwise.
#include "support/gpu_test.hpp"

#include <umsync/device.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/sync/bounded_wait.hpp>
#include <umsync/sync/signal.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using u32 = std::uint32_t;

__global__ void write_then_post(u32 const* in, u32* peer_data, u32* peer_flag, std::size_t n)
{
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    peer_data[i] = in[i] ^ 0x5A5A5A5AU;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    umsync::flag<umsync::system_visible>{peer_flag}.post();  // release, system scope
  }
}

__global__ void wait_then_read(u32 const* data, u32* flag_word, u32* out, std::size_t n, umsync::wait_record* record)
{
  if (threadIdx.x == 0) {
    umsync::flag<umsync::system_visible>{flag_word}.wait(umsync::wait_budget{record, 5'000'000'000ULL,
                                                                             "peer GPU posted its flag"});
  }
  __syncthreads();
  for (std::size_t i = threadIdx.x; i < n; i += blockDim.x) {
    out[i] = data[i];
  }
}

}  // namespace

TEST_CASE("a pool of GPU 0 opened to GPU 1 carries data and a system-scope flag between them (needs 2 GPUs)")
{
  int const count = umsync::probe_devices().count;
  if (count < 2) {
    MESSAGE("needs at least 2 GPUs, " << count << " visible: not run here");
    return;
  }
  int can_access = 0;
  UMSYNC_CUDA_CHECK(cudaDeviceCanAccessPeer(&can_access, 1, 0));
  if (can_access == 0) {
    MESSAGE("GPU 1 cannot access GPU 0's memory (cudaDeviceCanAccessPeer): not run here");
    return;
  }
  UMSYNC_CUDA_CHECK(cudaSetDevice(0));
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  auto const input = umsync_test::random_words(rng, n);
  {
    umsync::memory_pool pool({.device = 0});
    pool.ref().set_peer_access(1, true);  // the pool's owner opens it to the peer
    cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    cudaMemLocation peer{cudaMemLocationTypeDevice, 1};
    UMSYNC_CUDA_CHECK(cudaMemPoolGetAccess(&flags, pool.get(), &peer));
    CHECK(flags == cudaMemAccessFlagsProtReadWrite);

    umsync::wait_diagnostics diagnostics;
    umsync::stream<> const s0;
    umsync::stream_buffer<u32> shared(n + 1, s0, pool);  // data, then the flag word
    umsync::stream_buffer<u32> out(n, s0, pool);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(shared.data(), 0, (n + 1) * sizeof(u32), s0.get()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, n * sizeof(u32), s0.get()));  // poison
    s0.synchronize();  // allocated and cleared before the peer touches it

    wait_then_read<<<1, 256, 0, s0.get()>>>(shared.data(), shared.data() + n, out.data(), n,
                                            diagnostics.device_record());
    umsync_test::check_launch("wait_then_read");

    UMSYNC_CUDA_CHECK(cudaSetDevice(1));
    {
      umsync::stream<> const s1;
      umsync::stream_buffer<u32> in(n, s1);  // GPU 1's own memory
      UMSYNC_CUDA_CHECK(cudaMemcpyAsync(in.data(), input.data(), n * sizeof(u32), cudaMemcpyHostToDevice, s1.get()));
      write_then_post<<<1, 256, 0, s1.get()>>>(in.data(), shared.data(), shared.data() + n, n);
      umsync_test::check_launch("write_then_post");
      s1.synchronize();
    }
    UMSYNC_CUDA_CHECK(cudaSetDevice(0));
    diagnostics.check(cudaStreamSynchronize(s0.get()), "cudaStreamSynchronize");

    std::vector<u32> got(n);
    UMSYNC_CUDA_CHECK(cudaMemcpy(got.data(), out.data(), n * sizeof(u32), cudaMemcpyDeviceToHost));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += got[i] != (input[i] ^ 0x5A5A5A5AU) ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
}
