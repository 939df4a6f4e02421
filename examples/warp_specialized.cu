// A warp-specialized kernel: in each 256-thread block, warps 0..3 load tiles from global memory
// into a two-stage shared-memory buffer and warps 4..7 compute on them, synchronised by named
// hardware barriers taken from one umsync::barrier_plan. The plan is where every barrier id is
// written; it rejects at compile time a repeated id, an id inside a range reserved for a library
// the kernel calls (here 1..7, as CUTLASS reserves), more than 15 barriers, and warps outside
// the block. Producers arrive without waiting (`barrier.arrive`), consumers wait
// (`barrier.sync`), and both sides use the same count, so a mismatched count cannot be written.
//
//   stage s = tile % 2:   producers: wait empty[s] (from tile 2 on), load, arrive full[s]
//                         consumers: wait full[s], compute, arrive empty[s] (if a later tile uses it)
//
// The same work also runs in lockstep (all eight warps on one plan barrier, as __syncthreads()
// would do) for comparison. Prints both kernels' times and bandwidth, checks both against a host
// reference computed from fresh random input, and exits 0 only if both match.
//
// Under a CUDA tool (compute-sanitizer) only the lockstep kernel runs: racecheck does not count
// barrier.arrive as synchronization and reports every hand-off of the arrive/wait pipeline as a
// hazard (see test/sync/named_barrier_test.cu, where the results are right).
#include "support/example_main.hpp"

#include <umsync/sync/barrier_plan.hpp>
#include <umsync/sync/named_barrier.hpp>
#include <umsync/timed_event.hpp>
#include <umsync/umsync.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <utility>
#include <vector>

namespace {

struct compute {};
using u32 = std::uint32_t;

constexpr unsigned block_threads = 256;
constexpr unsigned producer_threads = 128;             // warps 0..3
constexpr unsigned tile_words = 4 * producer_threads;  // one uint4 per producer thread
constexpr unsigned tiles_per_block = 32;
constexpr unsigned work_rounds = 16;  // consumer work per element

using plan = umsync::barrier_plan<block_threads, umsync::reserved_barrier_ids<1, 7>,  // a library's barriers
                                  umsync::producer_consumer_spec<8, 0x0F, 0xF0>,      // 0: full, stage 0
                                  umsync::producer_consumer_spec<9, 0x0F, 0xF0>,      // 1: full, stage 1
                                  umsync::producer_consumer_spec<10, 0xF0, 0x0F>,     // 2: empty, stage 0
                                  umsync::producer_consumer_spec<11, 0xF0, 0x0F>,     // 3: empty, stage 1
                                  umsync::barrier_spec<12, 0xFF>>;                    // 4: all warps
static_assert(plan::barrier_count == 5 && plan::barrier_type<0>::thread_count == block_threads);
// Writing producer_consumer_spec<9, ...> twice, or an id in 1..7, would not compile:
// test/sync/compile_fail/barrier_plan_duplicate_id.cu and sync/compile_fail/barrier_plan_reserved_id.cu.

__host__ __device__ constexpr u32 work(u32 x, u32 tile)
{
  for (unsigned r = 0; r < work_rounds; ++r) {
    x = (x * 2654435761U + tile) ^ (x >> 13U);
  }
  return x;
}

// Consumer thread t writes position t of the output tile from position (producers - 1 - t) of
// the input tile: an element another warp loaded, so the hand-off has to be right.
__device__ uint4 consume(uint4 v, u32 tile)
{
  return uint4{work(v.x, tile), work(v.y, tile), work(v.z, tile), work(v.w, tile)};
}

__global__ void __launch_bounds__(plan::block_threads) specialized(u32 const* in, u32* out)
{
  constexpr auto full0 = plan::barrier<0>();
  constexpr auto full1 = plan::barrier<1>();
  constexpr auto empty0 = plan::barrier<2>();
  constexpr auto empty1 = plan::barrier<3>();
  __shared__ uint4 stage[2][producer_threads];
  auto const* in4 = reinterpret_cast<uint4 const*>(in);
  auto* out4 = reinterpret_cast<uint4*>(out);
  bool const producer = threadIdx.x < producer_threads;
  unsigned const t = threadIdx.x % producer_threads;
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * producer_threads;
  for (unsigned k = 0; k < tiles_per_block; ++k) {
    unsigned const s = k % 2;
    std::size_t const offset = base + std::size_t(k) * producer_threads;
    if (producer) {
      if (k >= 2) {  // the consumers are done with this stage's previous tile
        if (s == 0) {
          empty0.consumer_wait();
        } else {
          empty1.consumer_wait();
        }
      }
      stage[s][t] = in4[offset + t];
      if (s == 0) {
        full0.producer_arrive();
      } else {
        full1.producer_arrive();
      }
    } else {
      if (s == 0) {
        full0.consumer_wait();
      } else {
        full1.consumer_wait();
      }
      out4[offset + t] = consume(stage[s][producer_threads - 1 - t], k);
      if (k + 2 < tiles_per_block) {  // a later tile will fill this stage again
        if (s == 0) {
          empty0.producer_arrive();
        } else {
          empty1.producer_arrive();
        }
      }
    }
  }
}

// The same roles in lockstep: everyone waits for the load, everyone waits for the compute.
__global__ void __launch_bounds__(plan::block_threads) lockstep(u32 const* in, u32* out)
{
  constexpr auto all = plan::barrier<4>();
  __shared__ uint4 stage[producer_threads];
  auto const* in4 = reinterpret_cast<uint4 const*>(in);
  auto* out4 = reinterpret_cast<uint4*>(out);
  bool const producer = threadIdx.x < producer_threads;
  unsigned const t = threadIdx.x % producer_threads;
  std::size_t const base = std::size_t(blockIdx.x) * tiles_per_block * producer_threads;
  for (unsigned k = 0; k < tiles_per_block; ++k) {
    std::size_t const offset = base + std::size_t(k) * producer_threads;
    if (producer) {
      stage[t] = in4[offset + t];
    }
    all.sync();
    if (!producer) {
      out4[offset + t] = consume(stage[producer_threads - 1 - t], k);
    }
    all.sync();
  }
}

}  // namespace

int main()
{
  return umsync_example::run("warp_specialized", [&](umsync::device_probe const&) {
    unsigned const blocks = 4U *
                            static_cast<unsigned>(umsync::capabilities(umsync::current_device()).multiprocessor_count);
    std::size_t const n = std::size_t(blocks) * tiles_per_block * tile_words;
    umsync::launch_config const config{.grid = blocks, .block = plan::block_threads};

    std::mt19937 rng{std::random_device{}()};
    umsync::pinned_buffer<u32> host_in(n);
    umsync::pinned_buffer<u32> host_out(n);
    for (auto& x : host_in) {
      x = static_cast<u32>(rng());
    }
    // The reference: output tile position t (of uint4s) from input position producers - 1 - t.
    std::vector<u32> want(n);
    for (std::size_t tile_start = 0; tile_start < n; tile_start += tile_words) {
      auto const k = static_cast<u32>((tile_start / tile_words) % tiles_per_block);
      for (unsigned t = 0; t < producer_threads; ++t) {
        for (unsigned c = 0; c < 4; ++c) {
          want[tile_start + 4 * t + c] = work(host_in[tile_start + 4 * (producer_threads - 1 - t) + c], k);
        }
      }
    }

    umsync::stream<compute> s;
    umsync::stream_buffer<u32, compute> in(n, s);
    umsync::stream_buffer<u32, compute> out(n, s);
    umsync::copy_async(in, host_in, s);

    bool const tool = umsync::cuda_tool_attached();
    if (tool) {
      std::printf("warp_specialized: a CUDA tool is attached: the arrive/wait kernel is not run (racecheck does "
                  "not model barrier.arrive); the lockstep kernel on the same plan is\n");
    }
    std::size_t wrong_total = 0;
    auto const run = [&](char const* name, void (*kernel)(u32 const*, u32*)) {
      std::fill(host_out.begin(), host_out.end(), 0xA5A5A5A5U);
      umsync::copy_async(out, host_out, s);                       // poison the output
      umsync::launch(s, config, kernel, std::as_const(in), out);  // warm-up
      float best_ms = 1e30F;
      for (int trial = 0; trial < 5; ++trial) {
        umsync::timed_event start;
        umsync::timed_event stop;
        start.record(s);
        umsync::launch(s, config, kernel, std::as_const(in), out);
        stop.record(s);
        stop.synchronize();
        best_ms = std::min(best_ms, (stop - start).count());
      }
      umsync::copy_async(host_out, out, s);
      s.synchronize();
      std::size_t wrong = 0;
      std::size_t first = n;
      for (std::size_t i = 0; i < n; ++i) {
        if (host_out[i] != want[i]) {
          first = wrong == 0 ? i : first;
          ++wrong;
        }
      }
      double const bytes = 2.0 * n * sizeof(u32);
      std::printf("warp_specialized: %-32s best of 5 %.3f ms, %.1f GB/s, %zu of %zu wrong\n", name,
                  static_cast<double>(best_ms), bytes / (static_cast<double>(best_ms) * 1e6), wrong, n);
      if (wrong != 0) {
        std::fprintf(stderr, "warp_specialized: %s: first wrong output at %zu (block %zu, tile %zu): got %u, want %u\n",
                     name, first, first / (std::size_t(tiles_per_block) * tile_words),
                     (first / tile_words) % tiles_per_block, host_out[first], want[first]);
      }
      wrong_total += wrong;
      return best_ms;
    };

    std::printf("warp_specialized: %u blocks x %u threads, %u tiles of %u words per block, %zu MiB in, plan ids "
                "0x%04x (reserved 0x%04x)\n",
                blocks, plan::block_threads, tiles_per_block, tile_words, n * sizeof(u32) >> 20U, plan::used_ids,
                plan::reserved_ids);
    float const lockstep_ms = run("lockstep (one 8-warp barrier)", lockstep);
    if (!tool) {
      float const specialized_ms = run("specialized (arrive/wait, 2 stages)", specialized);
      std::printf("warp_specialized: lockstep / specialized time: %.3f\n",
                  static_cast<double>(lockstep_ms / specialized_ms));
    }
    std::printf("warp_specialized: %s\n", wrong_total == 0 ? "PASS" : "FAIL");
    return wrong_total == 0 ? 0 : 1;
  });
}
