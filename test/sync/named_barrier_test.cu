// GPU tests of umsync/sync/named_barrier.hpp and umsync/sync/barrier_plan.hpp: warp-specialized
// producer/consumer hand-off through shared memory (arrive/wait, both forms), groups of warps
// on their own barriers, and the plan's compile-time bookkeeping.
#include "support/gpu_test.hpp"
#include "support/sync_kernels.cuh"

#include <umsync/sync/barrier_plan.hpp>
#include <umsync/sync/named_barrier.hpp>

#include <cstdint>
#include <vector>

namespace {

constexpr unsigned block_threads = 256;
constexpr unsigned tile_elements = 128;  // one element per producer thread

// Warps 0..3 produce, 4..7 consume. "full": producers -> consumers; "empty": the way back.
using pipeline_plan =
    umsync::barrier_plan<block_threads, umsync::reserved_barrier_ids<1, 7>,
                         umsync::producer_consumer_spec<8, 0x0F, 0xF0>, umsync::producer_consumer_spec<9, 0xF0, 0x0F>>;

static_assert(pipeline_plan::barrier_count == 2);
static_assert(pipeline_plan::used_ids == ((1U << 8) | (1U << 9)));
static_assert(pipeline_plan::reserved_ids == 0xFEU);  // ids 1..7
static_assert(pipeline_plan::barrier_type<0>::id == 8 && pipeline_plan::barrier_type<0>::thread_count == 256);
static_assert(pipeline_plan::barrier_type<1>::producer_warps == 0xF0);
static_assert(pipeline_plan::barrier_type<1>::block_threads == block_threads);
static_assert(umsync::named_barrier<1, 0x1>::thread_count == 32);
static_assert(umsync::named_barrier<2, 0x0F0F>::thread_count == 256);
static_assert(umsync::named_barrier<15, 0xFFFFFFFF>::thread_count == 1024);

__host__ __device__ constexpr std::uint32_t mix(std::uint32_t x, std::uint32_t k) { return x * 2654435761U + k; }

template <bool Aligned>
__global__ void __launch_bounds__(block_threads)
    pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles_per_block)
{
  constexpr auto full = pipeline_plan::barrier<0>();
  constexpr auto empty = pipeline_plan::barrier<1>();
  __shared__ std::uint32_t tile[tile_elements];
  bool const producer = threadIdx.x < tile_elements;
  unsigned const t = threadIdx.x % tile_elements;
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * tile_elements;
  for (unsigned k = 0; k < tiles_per_block; ++k) {
    std::size_t const offset = base + std::size_t(k) * tile_elements;
    if (producer) {
      if (k > 0) {  // the consumers must be done with the previous tile
        if constexpr (Aligned) {
          empty.consumer_wait_aligned();
        } else {
          empty.consumer_wait();
        }
      }
      tile[t] = in[offset + t];
      if constexpr (Aligned) {
        full.producer_arrive_aligned();
      } else {
        full.producer_arrive();
      }
    } else {
      if constexpr (Aligned) {
        full.consumer_wait_aligned();
      } else {
        full.consumer_wait();
      }
      out[offset + t] = mix(tile[tile_elements - 1 - t], k);  // another thread's element
      if (k + 1 < tiles_per_block) {
        if constexpr (Aligned) {
          empty.producer_arrive_aligned();
        } else {
          empty.producer_arrive();
        }
      }
    }
  }
}

void check_pipeline(bool aligned)
{
  if (umsync::cuda_tool_attached()) {
    // racecheck does not count barrier.arrive as synchronization and reports every hand-off
    // (202,752 hazards on the H200, with results right): the pipeline is checked without tools.
    MESSAGE("a CUDA tool instruments this process: arrive/wait pipeline not run here");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 66;
  constexpr unsigned tiles_per_block = 24;
  std::size_t const n = std::size_t(blocks) * tiles_per_block * tile_elements;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync_test::sync_buffer<std::uint32_t> in(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(n, umsync_test::memory::device);
  in.upload(input);
  out.fill_bytes(0xA5);  // poison
  if (aligned) {
    pipeline<true><<<blocks, block_threads>>>(in.get(), out.get(), tiles_per_block);
  } else {
    pipeline<false><<<blocks, block_threads>>>(in.get(), out.get(), tiles_per_block);
  }
  umsync_test::check_launch("pipeline");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const result = out.download();
  std::size_t wrong = 0;
  for (std::size_t tile_start = 0; tile_start < n; tile_start += tile_elements) {
    auto const k = static_cast<std::uint32_t>((tile_start / tile_elements) % tiles_per_block);
    for (unsigned t = 0; t < tile_elements; ++t) {
      wrong += result[tile_start + t] != mix(input[tile_start + tile_elements - 1 - t], k) ? 1U : 0U;
    }
  }
  CHECK_MESSAGE(wrong == 0, wrong << " of " << n << " outputs wrong");
}

// Two groups of warps take different numbers of rounds on their own barriers; each round every
// thread reads its neighbour's value of the round before. Sharing an id would mix the counts.
constexpr unsigned group_threads = 128;
constexpr unsigned rounds_a = 5;
constexpr unsigned rounds_b = 9;

__global__ void __launch_bounds__(block_threads) independent_groups(std::uint32_t const* in, std::uint32_t* out)
{
  constexpr umsync::named_barrier<1, 0x0F, block_threads> group_a;
  constexpr umsync::named_barrier<2, 0xF0, block_threads> group_b;
  __shared__ std::uint32_t values[block_threads];
  unsigned const g = threadIdx.x / group_threads;
  unsigned const t = threadIdx.x % group_threads;
  std::uint32_t v = in[blockIdx.x * block_threads + threadIdx.x];
  unsigned const rounds = g == 0 ? rounds_a : rounds_b;
  for (unsigned r = 0; r < rounds; ++r) {
    values[threadIdx.x] = v;
    g == 0 ? group_a.sync() : group_b.sync();
    v = mix(values[g * group_threads + (t + 1) % group_threads], r);
    g == 0 ? group_a.sync() : group_b.sync();  // before the next round overwrites
  }
  out[blockIdx.x * block_threads + threadIdx.x] = v;
}

}  // namespace

TEST_CASE("producer warps hand tiles to consumer warps with arrive and wait (unaligned forms)")
{
  check_pipeline(false);
}

TEST_CASE("producer warps hand tiles to consumer warps with arrive and wait (aligned forms)") { check_pipeline(true); }

TEST_CASE("groups of warps on their own named barriers proceed independently")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 40;
  std::size_t const n = std::size_t(blocks) * block_threads;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync_test::sync_buffer<std::uint32_t> in(n, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint32_t> out(n, umsync_test::memory::device);
  in.upload(input);
  out.fill_bytes(0xA5);
  independent_groups<<<blocks, block_threads>>>(in.get(), out.get());
  umsync_test::check_launch("independent_groups");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> const result = out.download();

  std::vector<std::uint32_t> expected(input);
  for (std::size_t group = 0; group < n / group_threads; ++group) {
    unsigned const rounds = group % 2 == 0 ? rounds_a : rounds_b;
    std::uint32_t* v = expected.data() + group * group_threads;
    for (unsigned r = 0; r < rounds; ++r) {
      std::vector<std::uint32_t> const before(v, v + group_threads);
      for (unsigned t = 0; t < group_threads; ++t) {
        v[t] = mix(before[(t + 1) % group_threads], r);
      }
    }
  }
  CHECK(result == expected);
}

TEST_CASE("a plan hands out barriers with the ids and counts it declares")
{
  constexpr auto full = pipeline_plan::barrier<0>();
  constexpr auto empty = pipeline_plan::barrier<1>();
  CHECK(full.id == 8U);
  CHECK(empty.id == 9U);
  CHECK(full.thread_count == block_threads);
  CHECK(full.producer_warps == 0x0FU);
  CHECK(empty.producer_warps == 0xF0U);
  CHECK((pipeline_plan::used_ids & pipeline_plan::reserved_ids) == 0U);
}
