// GPU tests of the UMSYNC_DEBUG check of sync/proxy.hpp: a tile view used after it was moved into
// another step (a write through the view a release took, a read through a view moved into a
// second name) traps naming the rule; the same kernel using the views each step gives back runs
// without a trap. The traps run in child processes.
#include "support/child_process.hpp"
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/proxy.hpp>

#include <cstdint>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

enum class misuse : unsigned { none, write_after_release, read_after_move };

// out[i] = i + 1 through a shared tile; `Misuse` uses a view after another step took its tile.
template <misuse Misuse>
__global__ void round_trip(std::uint32_t* out)
{
  __shared__ umsync::shared_tile<std::uint32_t, 128> tile;
  auto written = tile.first_use().write();
  written[threadIdx.x] = threadIdx.x + 1U;
  auto read = std::move(written).read();
  out[threadIdx.x] = read[threadIdx.x];
  if constexpr (Misuse == misuse::read_after_move) {
    auto taken = std::move(read);
    out[threadIdx.x] += read[threadIdx.x];  // the moved-from view
    static_cast<void>(std::move(taken).release());
  } else {
    auto empty = std::move(read).release();
    if constexpr (Misuse == misuse::write_after_release) {
      auto again = std::move(written).write();  // `written` went into read() above
      again[threadIdx.x] = 0U;
    }
    static_cast<void>(empty);
  }
}

template <misuse Misuse>
void run_child()
{
  umsync_test::device_words out(128);
  round_trip<Misuse><<<1, 128>>>(out.get());
  umsync_test::print_child_status();
}

}  // namespace

TEST_CASE("debug builds: tile views used only as each step gives them back run without a trap")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("run with the other Hopper device tests (compute capability 9.0 or newer)");
    return;
  }
  umsync_test::memory_baseline const baseline;
  umsync_test::device_words out(128);
  out.poison();
  round_trip<misuse::none><<<1, 128>>>(out.get());
  umsync_test::check_launch("round_trip");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const got = out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    wrong += got[i] != i + 1U ? 1U : 0U;
  }
  CHECK(wrong == 0);
}

TEST_CASE("child process - tile view written after its state changed" * doctest::skip())
{
  run_child<misuse::write_after_release>();
}
TEST_CASE("child process - tile view read after it was moved" * doctest::skip())
{
  run_child<misuse::read_after_move>();
}

TEST_CASE("a tile view used after a state change took its tile traps")
{
  umsync_test::expect_child_trap("child process - tile view written after its state changed",
                                 {"umsync: a tile view is used", "after it was moved into another step"});
}

TEST_CASE("a tile view read after it was moved traps")
{
  umsync_test::expect_child_trap("child process - tile view read after it was moved",
                                 {"umsync: a tile view is used", "that step owns the tile now"});
}
