// GPU tests of the UMSYNC_DEBUG checks of sync/transaction_barrier.hpp and sync/bulk_copy.hpp:
// a wait whose phase never completes (more bytes expected than copied) traps naming the
// barrier, its phase and the bytes expected against the bytes issued; a bulk copy of a size
// that is not a multiple of 16 and one from a misaligned address trap; a bulk_fill dropped
// before arrive(), a store_token dropped unwaited and a phase used on another barrier trap. A
// correct round trip in a debug build does not. Each trap runs in a child process.
#include "support/child_process.hpp"
#include "support/device_trap.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/bulk_copy.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

using umsync::barrier_scope;

constexpr unsigned threads = 128;
constexpr unsigned words = 1024;

enum class misuse : unsigned {
  none,
  expect_more_than_copied,
  size_not_multiple_of_16,
  misaligned_source,
  fill_dropped,
  token_dropped,
  foreign_phase,
};

// Adds 1 to every element in place and stores the tile to out[block].
template <misuse Misuse>
__device__ void transform_and_store(umsync::tile<std::uint32_t, words, umsync::tile_state::loaded>&& loaded,
                                    std::uint32_t* out)
{
  auto data = std::move(loaded).write();
  for (unsigned i = threadIdx.x; i < words; i += blockDim.x) {
    data[i] += 1U;
  }
  auto token = umsync::bulk_store(out + std::size_t(blockIdx.x) * words, std::move(data).publish_to_async(),
                                  threadIdx.x == 0);
  if constexpr (Misuse == misuse::token_dropped) {
    auto const dropped = std::move(token);
  } else {
    static_cast<void>(std::move(token).wait());
  }
}

// out[block] = in[block] + 1 through one tile; `Misuse` breaks one rule.
template <misuse Misuse>
__global__ void round_trip(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full[2];
  __shared__ umsync::shared_tile<std::uint32_t, words> tile;
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  auto bar = bars[0];
  std::uint32_t const* const source = in + std::size_t(blockIdx.x) * words;
  if (threadIdx.x == 0) {
    if constexpr (Misuse == misuse::expect_more_than_copied) {
      bar.arrive_expect_tx(words * sizeof(std::uint32_t) + 16U);
      umsync::bulk_load(tile.first_use(), source, words, bar);
    } else if constexpr (Misuse == misuse::size_not_multiple_of_16) {
      umsync::bulk_fill(bar).load(tile.first_use(), source, words - 1U).arrive();
    } else if constexpr (Misuse == misuse::misaligned_source) {
      umsync::bulk_fill(bar).load(tile.first_use(), source + 1, words - 4U).arrive();
    } else if constexpr (Misuse == misuse::fill_dropped) {
      auto const dropped = umsync::bulk_fill(bar).load(tile.first_use(), source);
    } else {
      umsync::bulk_fill(bar).load(tile.first_use(), source).arrive();
    }
  }
  if constexpr (Misuse == misuse::foreign_phase) {
    // Phase 0 of barrier 1 used on barrier 0: the debug build sees the owner differ.
    auto [other, other_phase] = umsync::init_barriers(full[1], 1).publish();
    static_cast<void>(other);
    transform_and_store<Misuse>(bar.wait(other_phase, tile), out);
  } else {
    transform_and_store<Misuse>(bars.wait(0, phases, tile), out);
  }
}

constexpr unsigned blocks = 8;

template <misuse Misuse>
void run_child()
{
  std::uint32_t* memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&memory, 2 * blocks * words * sizeof(std::uint32_t)));
  round_trip<Misuse><<<blocks, threads>>>(memory, memory + blocks * words);
  umsync_test::print_child_status();
}

}  // namespace

TEST_CASE("debug builds: a correct bulk copy round trip runs without a trap")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("transaction barriers need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(blocks) * words);
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  std::size_t const bytes = input.size() * sizeof(std::uint32_t);
  UMSYNC_CUDA_CHECK(cudaMalloc(&in, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&out, bytes));
  UMSYNC_CUDA_CHECK(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
  UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, bytes));
  round_trip<misuse::none><<<blocks, threads>>>(in, out);
  umsync_test::check_launch("round_trip");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> result(input.size());
  UMSYNC_CUDA_CHECK(cudaMemcpy(result.data(), out, bytes, cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < result.size(); ++i) {
    wrong += result[i] == input[i] + 1U ? 0U : 1U;
  }
  CHECK(wrong == 0);
  UMSYNC_CUDA_CHECK(cudaFree(in));
  UMSYNC_CUDA_CHECK(cudaFree(out));
}

TEST_CASE("child process - transaction wait expecting more than copied" * doctest::skip())
{
  run_child<misuse::expect_more_than_copied>();
}
TEST_CASE("child process - bulk copy size not a multiple of 16" * doctest::skip())
{
  run_child<misuse::size_not_multiple_of_16>();
}
TEST_CASE("child process - bulk copy from a misaligned address" * doctest::skip())
{
  run_child<misuse::misaligned_source>();
}
TEST_CASE("child process - bulk fill dropped before arrive" * doctest::skip()) { run_child<misuse::fill_dropped>(); }
TEST_CASE("child process - store token dropped unwaited" * doctest::skip()) { run_child<misuse::token_dropped>(); }
TEST_CASE("child process - phase of another barrier" * doctest::skip()) { run_child<misuse::foreign_phase>(); }

TEST_CASE("a transaction wait that never completes traps with its phase and the bytes expected against issued")
{
  umsync_test::expect_child_trap("child process - transaction wait expecting more than copied",
                                 {"umsync: transaction barrier (block scope, shared 0x",
                                  ") phase 0 (parity 0) did not complete in block (",
                                  ": 4112 bytes expected, 4096 bytes of bulk copies issued on it (totals since init)"});
}

TEST_CASE("a bulk copy whose size is not a multiple of 16 traps")
{
  umsync_test::expect_child_trap("child process - bulk copy size not a multiple of 16",
                                 {"umsync: bulk_fill::load of 4092 bytes at global ",
                                  ": a bulk copy needs a 16-byte-aligned address and a size that is a multiple of 16"});
}

TEST_CASE("a bulk copy from an address that is not 16-byte aligned traps")
{
  umsync_test::expect_child_trap("child process - bulk copy from a misaligned address",
                                 {"umsync: bulk_fill::load of 4080 bytes at global ",
                                  ": a bulk copy needs a 16-byte-aligned address and a size that is a multiple of 16"});
}

TEST_CASE("a bulk fill destroyed before arrive() traps")
{
  umsync_test::expect_child_trap("child process - bulk fill dropped before arrive",
                                 {"umsync: bulk_fill destroyed without arrive() in block (",
                                  "; the barrier would never be told the bytes its copies deliver"});
}

TEST_CASE("a store token destroyed without wait() traps")
{
  umsync_test::expect_child_trap("child process - store token dropped unwaited",
                                 {"umsync: store_token destroyed without wait() in block (",
                                  "; the tile is reused, and the block exits, only after the store has read it"});
}

TEST_CASE("a barrier_phase used on another barrier traps")
{
  umsync_test::expect_child_trap("child process - phase of another barrier",
                                 {"umsync: a barrier_phase of the transaction barrier at shared 0x",
                                  "; each barrier is waited with its own phase"});
}
