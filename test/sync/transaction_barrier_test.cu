// GPU tests of sync/transaction_barrier.hpp without copies: many phases of one barrier with the
// phase object flipping the parity, a set of barriers indexed at run time, and a cluster-scope
// barrier that completes on arrivals from the other block (remote, release.cluster) whose
// writes into this block's shared memory the wait (acquire.cluster) must make visible.
#include "support/cluster_launch.cuh"
#include "support/gpu_test.hpp"

#include <umsync/sync/transaction_barrier.hpp>

#include <cstdint>
#include <vector>

namespace {

using umsync::barrier_scope;

constexpr unsigned threads = 256;
constexpr unsigned rounds = 300;

// Each round warp 0 writes the round's values into `slots` and arrives (32 arrivals); every
// thread waits, checks what it reads, and arrives on `done` so warp 0 may overwrite.
// errors[block] counts mismatches.
__global__ void phases_of_one_barrier(std::uint32_t const* seeds, std::uint32_t* errors)
{
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full;
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> done;
  __shared__ std::uint32_t slots[threads];
  auto [full_bar, full_phase] = umsync::init_barriers(full, 32).publish();
  auto [done_bar, done_phase] = umsync::init_barriers(done, threads).publish();
  std::uint32_t const seed = seeds[blockIdx.x];
  std::uint32_t wrong = 0;
  for (unsigned round = 0; round < rounds; ++round) {
    if (threadIdx.x < 32) {
      for (unsigned i = threadIdx.x; i < threads; i += 32) {
        slots[i] = seed ^ (round * 7919U + i);
      }
      full_bar.arrive();
    }
    full_bar.wait(full_phase);
    wrong += slots[threads - 1U - threadIdx.x] == (seed ^ (round * 7919U + threads - 1U - threadIdx.x)) ? 0U : 1U;
    done_bar.arrive();
    done_bar.wait(done_phase);
  }
  atomicAdd(errors + blockIdx.x, wrong);
}

// Four barriers used in turn by a run-time stage index (k % 4), each through its bit of the
// phases; the same write / check / release pattern per stage.
__global__ void set_indexed_at_run_time(std::uint32_t const* seeds, std::uint32_t* errors, unsigned stages_used)
{
  constexpr unsigned stages = 4;
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> full[stages];
  __shared__ umsync::transaction_barrier_storage<barrier_scope::block> done[stages];
  __shared__ std::uint32_t slots[stages][threads];
  auto [full_bars, full_phases] = umsync::init_barriers(full, 32).publish();
  auto [done_bars, done_phases] = umsync::init_barriers(done, threads).publish();
  std::uint32_t const seed = seeds[blockIdx.x];
  std::uint32_t wrong = 0;
  for (unsigned round = 0; round < rounds; ++round) {
    unsigned const s = round % stages_used;
    if (threadIdx.x < 32) {
      if (round >= stages_used) {
        done_bars.wait(s, done_phases);  // the stage's previous use is over
      }
      for (unsigned i = threadIdx.x; i < threads; i += 32) {
        slots[s][i] = seed + round * 31U + i;
      }
      full_bars[s].arrive();
    }
    full_bars.wait(s, full_phases);
    wrong += slots[s][threadIdx.x] == seed + round * 31U + threadIdx.x ? 0U : 1U;
    done_bars[s].arrive();
  }
  // Warp 0 waits the stages' last phases, so no arrival is pending when the block exits.
  if (threadIdx.x < 32) {
    unsigned const first_left = rounds > stages_used ? rounds - stages_used : 0;
    for (unsigned round = first_left; round < rounds; ++round) {
      done_bars.wait(round % stages_used, done_phases);
    }
  }
  atomicAdd(errors + blockIdx.x, wrong);
}

// Clusters of 2: each round, every thread of a block writes one word into the peer's `inbox`
// (distributed shared memory) and arrives remotely on the peer's barrier. With
// EveryWriterArrives, each writer's own arrival (release.cluster) carries its write and the
// barrier counts all of them; without, the block's threads pass a block barrier and thread 0
// arrives once for all (the barrier counts one arrival): both are ordered by the PTX memory
// model, and compute-sanitizer's racecheck reports the second (docs/testing.md). The reader
// checks its inbox after the wait, then both blocks pass a cluster barrier before the next
// round's writes.
template <bool EveryWriterArrives>
__global__ void remote_arrivals(std::uint32_t const* seeds, std::uint32_t* errors)
{
  __shared__ umsync::transaction_barrier_storage<barrier_scope::cluster> full;
  __shared__ std::uint32_t inbox[threads];
  auto [bar, phase] = umsync::init_barriers(full, EveryWriterArrives ? threads : 1U).publish();
  unsigned const rank = umsync::cluster::block_rank();
  unsigned const peer = rank ^ 1U;
  std::uint32_t const seed = seeds[blockIdx.x];
  std::uint32_t const peer_seed = seeds[blockIdx.x ^ 1U];
  std::uint32_t wrong = 0;
  umsync::cluster_shared_scope const scope;
  auto const remote_inbox = scope.map(inbox, peer);
  for (unsigned round = 0; round < 64; ++round) {
    remote_inbox[threadIdx.x] = seed * 3U + round + threadIdx.x;
    if constexpr (EveryWriterArrives) {
      bar.arrive_remote(peer);
    } else {
      __syncthreads();
      if (threadIdx.x == 0) {
        bar.arrive_remote(peer);
      }
    }
    bar.wait(phase);
    wrong += inbox[threadIdx.x] == peer_seed * 3U + round + threadIdx.x ? 0U : 1U;
    static_cast<void>(umsync::cluster::sync());
  }
  atomicAdd(errors + blockIdx.x, wrong);
}

struct device_buffers {
  explicit device_buffers(unsigned blocks) : blocks_(blocks)
  {
    UMSYNC_CUDA_CHECK(cudaMalloc(&seeds, blocks * sizeof(std::uint32_t)));
    UMSYNC_CUDA_CHECK(cudaMalloc(&errors, blocks * sizeof(std::uint32_t)));
  }
  device_buffers(device_buffers const&) = delete;
  device_buffers& operator=(device_buffers const&) = delete;
  ~device_buffers()
  {
    static_cast<void>(cudaFree(seeds));
    static_cast<void>(cudaFree(errors));
  }
  void fresh(std::mt19937_64& rng) const
  {
    std::vector<std::uint32_t> const words = umsync_test::random_words(rng, blocks_);
    UMSYNC_CUDA_CHECK(cudaMemcpy(seeds, words.data(), blocks_ * sizeof(std::uint32_t), cudaMemcpyHostToDevice));
    UMSYNC_CUDA_CHECK(cudaMemset(errors, 0, blocks_ * sizeof(std::uint32_t)));
  }
  [[nodiscard]] std::uint64_t total_errors() const
  {
    std::vector<std::uint32_t> got(blocks_);
    UMSYNC_CUDA_CHECK(cudaMemcpy(got.data(), errors, blocks_ * sizeof(std::uint32_t), cudaMemcpyDeviceToHost));
    std::uint64_t total = 0;
    for (std::uint32_t const e : got) {
      total += e;
    }
    return total;
  }
  std::uint32_t* seeds = nullptr;
  std::uint32_t* errors = nullptr;
  unsigned blocks_;
};

bool device_is_sm90()
{
  int device = 0;
  int major = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

}  // namespace

TEST_CASE("one transaction barrier through 300 phases: each wait sees its phase's writes")
{
  if (!device_is_sm90()) {
    MESSAGE("transaction barriers need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  device_buffers buffers(264);
  buffers.fresh(rng);
  phases_of_one_barrier<<<264, threads>>>(buffers.seeds, buffers.errors);
  umsync_test::check_launch("phases_of_one_barrier");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(buffers.total_errors() == 0);
}

TEST_CASE("a set of transaction barriers indexed by a run-time stage, 1 to 4 stages in use")
{
  if (!device_is_sm90()) {
    MESSAGE("transaction barriers need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  device_buffers buffers(264);
  for (unsigned const used : {1U, 2U, 3U, 4U}) {
    CAPTURE(used);
    buffers.fresh(rng);
    set_indexed_at_run_time<<<264, threads>>>(buffers.seeds, buffers.errors, used);
    umsync_test::check_launch("set_indexed_at_run_time");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    CHECK(buffers.total_errors() == 0);
  }
}

namespace {
template <bool EveryWriterArrives>
void check_remote_arrivals()
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters (compute capability 9.0 and newer)");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  device_buffers buffers(264);
  buffers.fresh(rng);
  umsync_test::launch_in_clusters(remote_arrivals<EveryWriterArrives>, 264, 2U, threads,
                                  static_cast<std::uint32_t const*>(buffers.seeds), buffers.errors);
  umsync_test::check_launch("remote_arrivals");
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  CHECK(buffers.total_errors() == 0);
}
}  // namespace

TEST_CASE("a cluster-scope transaction barrier completes on the peer's remote arrivals and shows its writes")
{
  check_remote_arrivals<false>();
}

TEST_CASE("a cluster-scope transaction barrier counting every writer's own arrival on the peer shows their writes")
{
  check_remote_arrivals<true>();
}
