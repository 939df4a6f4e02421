// GPU tests of the UMSYNC_DEBUG checks of sync/pipeline.hpp: a stage index out of range, a
// consumer's wait from the producer's warp and an acquire from a consumer warp (a role's
// operation from a warp outside its mask), a stage released twice, one released through a
// moved-from handle, a stage read after release() or through a moved-from handle, an acquired
// stage filled twice, a waited stage destroyed unreleased and an acquired one destroyed unfilled
// each trap with a message; a block too small for the warp masks traps at publish(). A correct
// pipeline in a debug build does not. Each trap runs in a child process.
#include "support/child_process.hpp"
#include "support/device_trap.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/pipeline.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {

constexpr unsigned words = 1024;
constexpr unsigned stages = 2;
constexpr unsigned threads = 96;  // warp 0 produces, warps 1 and 2 consume
constexpr unsigned consumer_threads = 64;
constexpr unsigned tiles_per_block = 5;

enum class misuse : unsigned {
  none,
  stage_out_of_range,
  wait_by_producer_warp,
  acquire_by_consumer_warp,
  released_twice,
  released_after_move,
  read_after_release,
  read_after_move,
  not_released,
  not_filled,
  filled_twice,
};

// out[b][k][i] = in[b][k][i] + 1 through a 2-stage pipeline; `Misuse` breaks one rule.
template <misuse Misuse>
__global__ void pipelined_add(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ umsync::pipeline_storage<std::uint32_t, words, stages> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x6>(storage).publish();
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * words;
  unsigned const warp = threadIdx.x / 32U;
  bool const producing = Misuse == misuse::acquire_by_consumer_warp ? threadIdx.x == 32 : threadIdx.x == 0;
  if (producing) {
    auto producer = pipe.producer(std::move(phases));
    for (unsigned k = 0; k < tiles_per_block; ++k) {
      if constexpr (Misuse == misuse::filled_twice) {
        auto stage = producer.acquire(k % stages);
        std::move(stage).fill(in + base + std::size_t(k) * words);
        std::move(stage).fill(in + base + std::size_t(k) * words);  // NOLINT(bugprone-use-after-move)
      } else if constexpr (Misuse == misuse::not_filled) {
        auto const dropped = producer.acquire(k % stages);
      } else {
        producer.acquire(k % stages).fill(in + base + std::size_t(k) * words);
      }
    }
  } else if (warp != 0 || Misuse == misuse::wait_by_producer_warp) {
    auto consumer = pipe.consumer(std::move(phases));
    unsigned const thread = threadIdx.x % consumer_threads;
    for (unsigned k = 0; k < tiles_per_block; ++k) {
      auto stage = consumer.wait(Misuse == misuse::stage_out_of_range && k == 1 ? stages : k % stages);
      for (unsigned i = thread; i < words; i += consumer_threads) {
        out[base + std::size_t(k) * words + i] = stage[i] + 1U;
      }
      if constexpr (Misuse == misuse::released_twice) {
        std::move(stage).release();
        std::move(stage).release();  // NOLINT(bugprone-use-after-move): the misuse under test
      } else if constexpr (Misuse == misuse::released_after_move) {
        auto moved = std::move(stage);
        std::move(moved).release();
        std::move(stage).release();  // NOLINT(bugprone-use-after-move): the misuse under test
      } else if constexpr (Misuse == misuse::read_after_release) {
        std::move(stage).release();
        out[base + std::size_t(k) * words + thread] = stage[thread];  // NOLINT(bugprone-use-after-move)
      } else if constexpr (Misuse == misuse::read_after_move) {
        auto moved = std::move(stage);
        out[base + std::size_t(k) * words + thread] = stage[thread];  // NOLINT(bugprone-use-after-move)
        std::move(moved).release();
      } else if constexpr (Misuse != misuse::not_released) {
        std::move(stage).release();
      }
    }
  }
}

constexpr unsigned blocks = 8;
constexpr std::size_t total_words = std::size_t(blocks) * tiles_per_block * words;

template <misuse Misuse>
void run_child(unsigned block_threads = threads)
{
  std::uint32_t* memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&memory, 2 * total_words * sizeof(std::uint32_t)));
  UMSYNC_CUDA_CHECK(cudaMemset(memory, 0, 2 * total_words * sizeof(std::uint32_t)));
  pipelined_add<Misuse><<<blocks, block_threads>>>(memory, memory + total_words);
  umsync_test::print_child_status();
}

}  // namespace

TEST_CASE("debug builds: a correct two-stage pipeline runs without a trap and is exact")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("transaction barriers need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, total_words);
  std::uint32_t* in = nullptr;
  std::uint32_t* out = nullptr;
  std::size_t const bytes = total_words * sizeof(std::uint32_t);
  UMSYNC_CUDA_CHECK(cudaMalloc(&in, bytes));
  UMSYNC_CUDA_CHECK(cudaMalloc(&out, bytes));
  UMSYNC_CUDA_CHECK(cudaMemcpy(in, input.data(), bytes, cudaMemcpyHostToDevice));
  UMSYNC_CUDA_CHECK(cudaMemset(out, 0xA5, bytes));
  pipelined_add<misuse::none><<<blocks, threads>>>(in, out);
  umsync_test::check_launch("pipelined_add");
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

TEST_CASE("child process - pipeline stage out of range" * doctest::skip()) { run_child<misuse::stage_out_of_range>(); }
TEST_CASE("child process - pipeline wait by the producer warp" * doctest::skip())
{
  run_child<misuse::wait_by_producer_warp>();
}
TEST_CASE("child process - pipeline acquire by a consumer warp" * doctest::skip())
{
  run_child<misuse::acquire_by_consumer_warp>();
}
TEST_CASE("child process - pipeline stage released twice" * doctest::skip()) { run_child<misuse::released_twice>(); }
TEST_CASE("child process - pipeline stage released after a move" * doctest::skip())
{
  run_child<misuse::released_after_move>();
}
TEST_CASE("child process - pipeline stage read after release" * doctest::skip())
{
  run_child<misuse::read_after_release>();
}
TEST_CASE("child process - pipeline stage read after a move" * doctest::skip())
{
  run_child<misuse::read_after_move>();
}
TEST_CASE("child process - pipeline stage not released" * doctest::skip()) { run_child<misuse::not_released>(); }
TEST_CASE("child process - pipeline stage not filled" * doctest::skip()) { run_child<misuse::not_filled>(); }
TEST_CASE("child process - pipeline stage filled twice" * doctest::skip()) { run_child<misuse::filled_twice>(); }
TEST_CASE("child process - pipeline in a block smaller than its warp masks" * doctest::skip())
{
  run_child<misuse::none>(64);
}

TEST_CASE("a pipeline stage index out of range traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage out of range",
                                 {"umsync: pipeline wait() of stage 2 in block (", "): the pipeline has 2 stages"});
}

TEST_CASE("a consumer's wait from the producer's warp traps, naming the role")
{
  umsync_test::expect_child_trap(
      "child process - pipeline wait by the producer warp",
      {"umsync: pipeline wait() by warp 0 of block (",
       "which is not a consumer warp (consumer warps 0x00000006); each role's operations run in its own warps"});
}

TEST_CASE("an acquire from a consumer warp traps, naming the role")
{
  umsync_test::expect_child_trap("child process - pipeline acquire by a consumer warp",
                                 {"umsync: pipeline acquire() by warp 1 of block (",
                                  "which is not a producer warp (producer warps 0x00000001)"});
}

TEST_CASE("a pipeline stage released twice traps")
{
  umsync_test::expect_child_trap(
      "child process - pipeline stage released twice",
      {"umsync: pipeline stage 0 released twice in block (",
       "; each wait() is released once; a second arrival would complete the next round's empty phase early"});
}

TEST_CASE("a pipeline stage released through a moved-from handle traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage released after a move",
                                 {"umsync: pipeline stage 0 released through a moved-from handle in block ("});
}

TEST_CASE("a pipeline stage read after release() traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage read after release",
                                 {"umsync: pipeline stage 0 read after release() in block (",
                                  "; a stage is read only between its wait() and its release(); after the release the "
                                  "producer may already be refilling it"});
}

TEST_CASE("a pipeline stage read through a moved-from handle traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage read after a move",
                                 {"umsync: pipeline stage 0 read through a moved-from handle in block ("});
}

TEST_CASE("a waited pipeline stage destroyed without release() traps")
{
  umsync_test::expect_child_trap(
      "child process - pipeline stage not released",
      {"umsync: pipeline stage 0 destroyed without release() in block (",
       "; every consumer thread releases every stage it waited for, or the producer never refills it"});
}

TEST_CASE("an acquired pipeline stage filled twice traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage filled twice",
                                 {"umsync: pipeline stage 0 filled twice in block (",
                                  "; each acquire() is filled once; a second fill arrives on the full barrier again "
                                  "and completes the next round's phase early"});
}

TEST_CASE("an acquired pipeline stage destroyed without fill() traps")
{
  umsync_test::expect_child_trap("child process - pipeline stage not filled",
                                 {"umsync: pipeline stage 0 acquired and destroyed without fill() in block (",
                                  "; the consumers would wait for it forever"});
}

TEST_CASE("a pipeline published in a block smaller than its warp masks traps")
{
  umsync_test::expect_child_trap(
      "child process - pipeline in a block smaller than its warp masks",
      {"umsync: a pipeline whose warp masks (producers 0x00000001, consumers 0x00000006) need 96 threads runs "
       "in block (",
       ") of 64 threads"});
}
