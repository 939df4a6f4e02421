// GPU tests of the UMSYNC_DEBUG barrier-owner check (sync/named_barrier.hpp): a barrier_plan's
// ids belong to its barriers. A standalone named barrier that uses one of them in the same block
// traps and prints both barriers; standalone barriers may still reuse an id in sequence. A trap
// ends the CUDA context, so that case runs in a child process.
#include "support/child_process.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/barrier_plan.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

constexpr unsigned block_threads = 256;
// Warps 0..3 write a tile to shared memory, warps 4..7 read it after the block's barrier id 8
// (a sync of all eight warps: racecheck models it, unlike barrier.arrive).
using handoff_plan = umsync::barrier_plan<block_threads, umsync::barrier_spec<8, 0xFF>>;
static_assert(handoff_plan::barrier_type<0>::owner == umsync::barrier_owner::plan);
static_assert(umsync::named_barrier<9, 0x03>::owner == umsync::barrier_owner::standalone);

constexpr char const* child_case = "child process - a standalone barrier on an id of the plan traps";

// out[block * 128 + i] = in[block * 128 + i] + 1, through the plan's handoff; then the
// producer warps sync among themselves on `StandaloneId` twice with different warp sets
// (legal reuse in sequence when the id is not the plan's).
template <unsigned StandaloneId>
__global__ void handoff(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t tile[128];
  constexpr auto full = handoff_plan::barrier<0>();
  unsigned const warp = threadIdx.x / 32U;
  std::size_t const base = static_cast<std::size_t>(blockIdx.x) * 128U;
  if (warp < 4) {
    tile[threadIdx.x] = in[base + threadIdx.x];
  }
  full.sync();
  if (warp < 4) {
    umsync::named_barrier<StandaloneId, 0x0F, block_threads>{}.sync();
    if (warp < 2) {
      umsync::named_barrier<StandaloneId, 0x03, block_threads>{}.sync();
    }
  } else {
    out[base + threadIdx.x - 128U] = tile[threadIdx.x - 128U] + 1U;
  }
}

}  // namespace

TEST_CASE("a plan's barriers and standalone barriers on other ids run, and reuse in sequence is allowed")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 32;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, blocks * 128U);
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&in, input.size() * sizeof(std::uint32_t)));
  UMSYNC_CUDA_CHECK(cudaMalloc(&out, input.size() * sizeof(std::uint32_t)));
  UMSYNC_CUDA_CHECK(cudaMemcpy(in, input.data(), input.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
  UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, input.size() * sizeof(std::uint32_t)));  // poison
  for (int round = 0; round < 2; ++round) {  // a second launch meets the first one's claims in shared memory
    handoff<9><<<blocks, block_threads>>>(in, out);
    umsync_test::check_launch("handoff<9>");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<std::uint32_t> result(input.size());
  UMSYNC_CUDA_CHECK(cudaMemcpy(result.data(), out, result.size() * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    wrong += result[i] == input[i] + 1U ? 0U : 1U;
  }
  CHECK(wrong == 0);
  UMSYNC_CUDA_CHECK(cudaFree(in));
  UMSYNC_CUDA_CHECK(cudaFree(out));
}

TEST_CASE("child process - a standalone barrier on an id of the plan traps" * doctest::skip())
{
  // Runs only when the parent case below starts it: the trap ends this process's CUDA context.
  std::uint32_t* memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&memory, 2 * 128 * sizeof(std::uint32_t)));
  handoff<8><<<1, block_threads>>>(memory, memory + 128);
  cudaError_t const status = cudaDeviceSynchronize();
  std::printf("CHILD-STATUS: %s\n", cudaGetErrorName(status));
  std::fflush(stdout);
}

TEST_CASE("a standalone barrier on an id of the kernel's barrier plan traps, naming both barriers")
{
  if (umsync::cuda_tool_attached()) {
    MESSAGE("a CUDA tool instruments this process: it would report the deliberate trap; not run here");
    return;
  }
  int status = 0;
  std::string const output = umsync_test::run_own_case(child_case, status);
  INFO("child output:\n" << output);
  REQUIRE(WIFEXITED(status));
  CHECK(output.find("CHILD-STATUS: cudaSuccess") == std::string::npos);
  CHECK(output.find("umsync: barrier id 8 is used by two barriers in block (0,0,0): named_barrier (warps "
                    "0x000000ff, a barrier_plan) and named_barrier (warps 0x0000000f, standalone); a barrier_plan's "
                    "ids belong to its barriers only") != std::string::npos);
}
