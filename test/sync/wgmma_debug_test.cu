// GPU tests of the UMSYNC_DEBUG checks of sync/wgmma.hpp (sm_90a: umsync_gpu_debug_sm90a_tests):
// a group waited with wait<1> while no newer group was committed (so wait_group 1 may leave it
// running while its tiles are released) traps naming the count; tiles moved into a group and
// released through their old names before its wait trap (proxy.hpp's moved-from check); the same
// kernel waiting with wait<0> runs without a trap. The traps run in child processes.
#include "support/child_process.hpp"
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/wgmma.hpp>

#include <cuda_bf16.h>

#include <cstdint>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

using a_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;
using b_map = umsync::tensor_map<__nv_bfloat16 const, umsync::box<64, 64>, umsync::tensor_swizzle::bytes_128>;

template <int Pending, bool ReleaseMovedViews>
__global__ void __launch_bounds__(128)
    one_group(a_map const __grid_constant__ am, b_map const __grid_constant__ bm, float* out)
{
  __shared__ a_map::shared_tile_type a_tile;
  __shared__ b_map::shared_tile_type b_tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0])
        .load(a_tile.first_use(), am.box_at(0, 0))
        .load(b_tile.first_use(), bm.box_at(0, 0))
        .arrive();
  }
  auto [a, b] = bars.wait(0, phases, a_tile, b_tile);
  umsync::wgmma_accumulator<64> zeros;
  auto mma = umsync::start_wgmma(std::move(zeros));
  if constexpr (ReleaseMovedViews) {
    // The bug the group prevents: the stage given back while the MMA reading it may run.
    auto group = mma.multiply(std::move(a), std::move(b));
    static_cast<void>(umsync::release_stage(umsync::whole_block{}, std::move(a), std::move(b)));
    auto [a_done, b_done] = std::move(group).template wait<0>(mma);
    static_cast<void>(a_done);
    static_cast<void>(b_done);
  } else {
    auto [a_done, b_done] = mma.multiply(std::move(a), std::move(b)).template wait<Pending>(mma);
    static_cast<void>(umsync::release_stage(umsync::whole_block{}, std::move(a_done), std::move(b_done)));
  }
  auto const result = std::move(mma).drain();
  for (std::size_t i = 0; i < result.size; ++i) {
    out[std::size_t(result.row(i)) * 64 + result.column(i)] = result[i];
  }
}

template <int Pending, bool ReleaseMovedViews = false>
void run_one_group(umsync_test::device_words& out)
{
  umsync_test::device_words a(64 * 64 / 2);
  umsync_test::device_words b(64 * 64 / 2);
  UMSYNC_CUDA_CHECK(cudaMemset(a.get(), 0, 64 * 64 * 2));
  UMSYNC_CUDA_CHECK(cudaMemset(b.get(), 0, 64 * 64 * 2));
  auto const am = a_map::encode(reinterpret_cast<__nv_bfloat16 const*>(a.get()), {64, 64});
  auto const bm = b_map::encode(reinterpret_cast<__nv_bfloat16 const*>(b.get()), {64, 64});
  one_group<Pending, ReleaseMovedViews><<<1, 128>>>(am, bm, reinterpret_cast<float*>(out.get()));
}

bool device_is_sm90() { return umsync_test::device_is_sm90(); }

}  // namespace

TEST_CASE("debug builds: a wgmma group waited with wait<0> runs without a trap, its product exact")
{
  if (!device_is_sm90()) {
    MESSAGE("wgmma needs compute capability 9.0");
    return;
  }
  umsync_test::memory_baseline const baseline;
  umsync_test::device_words out(64 * 64);
  out.poison();
  run_one_group<0>(out);
  umsync_test::check_launch("one_group");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const words = out.download();
  std::size_t not_zero = 0;
  for (std::uint32_t const word : words) {
    not_zero += word != 0U ? 1U : 0U;  // zeros times zeros: every element written as +0.0f
  }
  CHECK(not_zero == 0);
}

TEST_CASE("child process - wgmma group waited with wait<1> and no newer group" * doctest::skip())
{
  umsync_test::device_words out(64 * 64);
  run_one_group<1>(out);
  umsync_test::print_child_status();
}

TEST_CASE("a wgmma wait that may leave its own group in flight traps with the count")
{
  umsync_test::expect_child_trap("child process - wgmma group waited with wait<1> and no newer group",
                                 {"umsync: wgmma wait<1>", "leaves the group that reads these tiles in flight",
                                  "0 groups were committed after it"});
}

TEST_CASE("child process - wgmma stage released while its group runs" * doctest::skip())
{
  umsync_test::device_words out(64 * 64);
  run_one_group<0, true>(out);
  umsync_test::print_child_status();
}

TEST_CASE("releasing the tiles an MMA group took, before its wait, traps")
{
  umsync_test::expect_child_trap("child process - wgmma stage released while its group runs",
                                 {"umsync: a tile view is used", "an MMA group"});
}
