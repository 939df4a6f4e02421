// GPU tests of sync/cluster.hpp: a cross-block reduction through distributed shared memory in
// clusters of 2 and 4, the split barrier, and a block that returns early inside its scope while
// a peer still reads its shared memory. The races the types rule out are also run raw, in child
// processes (reading a peer before the first barrier, exiting while a peer reads): they report
// how often the result was wrong; only the typed kernels are required to be exact.
#include "support/child_process.hpp"
#include "support/cluster_launch.cuh"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/cluster.hpp>

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr unsigned threads = 256;
constexpr std::uint64_t late_ns = 20'000;  // how late the late block is in the race kernels
constexpr int race_launches = 20;

using umsync_test::device_words;

// tile[0] = the sum of the block's 256 inputs.
__device__ void block_sum(std::uint32_t const* in, std::uint32_t* tile)
{
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  for (unsigned stride = threads / 2; stride > 0; stride >>= 1U) {
    __syncthreads();
    if (threadIdx.x < stride) {
      tile[threadIdx.x] += tile[threadIdx.x + stride];
    }
  }
  __syncthreads();
}

// totals[b] = the sum of the inputs of every block of b's cluster; shapes[b] = rank | count << 16.
__global__ void cluster_sum(std::uint32_t const* in, std::uint32_t* totals, std::uint32_t* shapes)
{
  __shared__ std::uint32_t tile[threads];
  __shared__ std::uint32_t sums[32];
  block_sum(in, tile);
  unsigned const count = umsync::cluster::block_count();
  {
    umsync::cluster_shared_scope const scope;
    if (threadIdx.x < count) {
      auto const peer = scope.map(static_cast<std::uint32_t const*>(tile), threadIdx.x);
      sums[threadIdx.x] = peer[0];
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t total = 0;
    for (unsigned r = 0; r < count; ++r) {
      total += sums[r];
    }
    totals[blockIdx.x] = total;
    shapes[blockIdx.x] = umsync::cluster::block_rank() | (count << 16U);
  }
}

// out[b][t] = the next block's input t + 3 * b's input 255 - t; the second term is loaded between
// the halves of the split barrier that opens the scope.
__global__ void neighbour_split(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t tile[threads];
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  auto arrival = umsync::cluster::arrive();
  std::uint32_t const independent = in[blockIdx.x * threads + threads - 1U - threadIdx.x] * 3U;
  umsync::cluster_shared_scope const scope(arrival.wait());
  unsigned const next = (umsync::cluster::block_rank() + 1U) % umsync::cluster::block_count();
  auto const peer = scope.map(static_cast<std::uint32_t const*>(tile), next);
  out[blockIdx.x * threads + threadIdx.x] = peer[threadIdx.x] + independent;
}

__device__ void raw_cluster_sync()
{
  asm volatile("barrier.cluster.arrive.release;\n\tbarrier.cluster.wait.acquire;" ::: "memory");
}

// Clusters of 2: rank 0 copies rank 1's tile to out[cluster]. Rank 1 is late (it writes its
// tile `late_ns` after it starts). Typed: the read is inside a scope, after the opening barrier.
// Raw: rank 0 reads at once, without the first barrier (the closing one is kept).
template <bool Typed>
__global__ void read_late_peer(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t tile[threads];
  unsigned const rank = umsync::cluster::block_rank();
  std::size_t const cluster_index = blockIdx.x / 2U;
  if (rank != 0) {
    umsync_test::spin_for_ns(late_ns);
  }
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  if constexpr (Typed) {
    umsync::cluster_shared_scope const scope;
    if (rank == 0) {
      out[cluster_index * threads + threadIdx.x] = scope.map(static_cast<std::uint32_t const*>(tile), 1)[threadIdx.x];
    }
  } else {
    if (rank == 0) {
      auto const* const peer = static_cast<std::uint32_t const*>(__cluster_map_shared_rank(tile, 1));
      out[cluster_index * threads + threadIdx.x] = peer[threadIdx.x];
    }
    raw_cluster_sync();
  }
}

// Clusters of 2: after the first barrier rank 1 returns at once and rank 0 reads rank 1's tile
// `late_ns` later. Typed: rank 1 returns from inside the scope, whose destructor runs the
// closing barrier, so its shared memory lives until rank 0 has read it. Raw: rank 1 exits.
template <bool Typed>
__global__ void exit_while_read(std::uint32_t const* in, std::uint32_t* out)
{
  __shared__ std::uint32_t tile[threads];
  unsigned const rank = umsync::cluster::block_rank();
  std::size_t const cluster_index = blockIdx.x / 2U;
  tile[threadIdx.x] = in[blockIdx.x * threads + threadIdx.x];
  if constexpr (Typed) {
    umsync::cluster_shared_scope const scope;
    if (rank != 0) {
      return;  // the closing barrier still runs
    }
    umsync_test::spin_for_ns(late_ns);
    out[cluster_index * threads + threadIdx.x] = scope.map(static_cast<std::uint32_t const*>(tile), 1)[threadIdx.x];
  } else {
    raw_cluster_sync();
    if (rank != 0) {
      return;  // exits while rank 0 may still read its shared memory
    }
    umsync_test::spin_for_ns(late_ns);
    auto const* const peer = static_cast<std::uint32_t const*>(__cluster_map_shared_rank(tile, 1));
    out[cluster_index * threads + threadIdx.x] = peer[threadIdx.x];
  }
}

// Elements where out[c][t] != in[(2c + 1)][t]: rank 0 of cluster c was to copy rank 1's tile.
std::size_t wrong_peer_copies(std::vector<std::uint32_t> const& input, std::vector<std::uint32_t> const& output)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < output.size(); ++i) {
    std::size_t const cluster_index = i / threads;
    wrong += output[i] == input[(2 * cluster_index + 1) * threads + i % threads] ? 0U : 1U;
  }
  return wrong;
}

using pair_kernel = void (*)(std::uint32_t const*, std::uint32_t*);

// Runs `kernel` in clusters of 2 over `clusters` clusters, `launches` times with fresh inputs and
// poisoned outputs; returns the wrong elements summed over all launches. Stops at the first
// launch that fails, with its status in `status`.
std::size_t run_peer_copies(pair_kernel kernel, unsigned clusters, int launches, cudaError_t& status)
{
  auto rng = umsync_test::make_rng();
  device_words in(std::size_t(clusters) * 2U * threads);
  device_words out(std::size_t(clusters) * threads);
  std::size_t wrong = 0;
  status = cudaSuccess;
  for (int launch = 0; launch < launches && status == cudaSuccess; ++launch) {
    std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(clusters) * 2U * threads);
    in.upload(input);
    out.poison();
    umsync_test::launch_in_clusters(kernel, clusters * 2U, 2U, threads, in.get(), out.get());
    status = cudaDeviceSynchronize();
    if (status == cudaSuccess) {
      wrong += wrong_peer_copies(input, out.download());
    }
  }
  return wrong;
}

constexpr unsigned race_clusters = 1024;

void report_raw_race(char const* name, pair_kernel kernel)
{
  cudaError_t status = cudaSuccess;
  std::size_t const wrong = run_peer_copies(kernel, race_clusters, race_launches, status);
  std::printf("CHILD-RESULT: %s: %zu of %zu elements wrong in %d launches of %u clusters of 2; status %s\n", name,
              wrong, std::size_t(race_clusters) * threads * race_launches, race_launches, race_clusters,
              cudaGetErrorName(status));
  std::fflush(stdout);
}

// The child's report, or the whole output when it printed none.
std::string child_report(char const* child_case)
{
  int status = 0;
  std::string const output = umsync_test::run_own_case(child_case, status);
  INFO("child output:\n" << output);
  CHECK(WIFEXITED(status));
  auto const at = output.find("CHILD-RESULT: ");
  REQUIRE(at != std::string::npos);
  return output.substr(at, output.find('\n', at) - at);
}

}  // namespace

TEST_CASE("a cross-block reduction through distributed shared memory is exact in clusters of 2 and 4")
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters (compute capability 9.0 and newer)");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 264;  // 2 x 132, divisible by 2 and 4
  for (unsigned const size : {2U, 4U}) {
    CAPTURE(size);
    std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(blocks) * threads);
    device_words in(input.size());
    device_words totals(blocks);
    device_words shapes(blocks);
    in.upload(input);
    totals.poison();
    shapes.poison();
    umsync_test::launch_in_clusters(cluster_sum, blocks, size, threads, in.get(), totals.get(), shapes.get());
    umsync_test::check_launch("cluster_sum");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> const got = totals.download();
    std::vector<std::uint32_t> const shape = shapes.download();
    std::size_t wrong_totals = 0;
    std::size_t wrong_shapes = 0;
    for (unsigned b = 0; b < blocks; ++b) {
      std::uint32_t expected = 0;
      unsigned const first = b / size * size;
      for (std::size_t i = std::size_t(first) * threads; i < std::size_t(first + size) * threads; ++i) {
        expected += input[i];
      }
      wrong_totals += got[b] == expected ? 0U : 1U;
      wrong_shapes += shape[b] == ((b % size) | (size << 16U)) ? 0U : 1U;
    }
    CHECK(wrong_totals == 0);
    CHECK(wrong_shapes == 0);
  }
}

TEST_CASE("the split barrier opens a scope: the neighbour's tile plus work done between arrive and wait")
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 256;
  for (unsigned const size : {2U, 4U}) {
    CAPTURE(size);
    std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(blocks) * threads);
    device_words in(input.size());
    device_words out(input.size());
    in.upload(input);
    out.poison();
    umsync_test::launch_in_clusters(neighbour_split, blocks, size, threads, in.get(), out.get());
    umsync_test::check_launch("neighbour_split");
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<std::uint32_t> const got = out.download();
    std::size_t wrong = 0;
    for (unsigned b = 0; b < blocks; ++b) {
      unsigned const next = b / size * size + (b % size + 1U) % size;
      for (unsigned t = 0; t < threads; ++t) {
        std::uint32_t const expected = input[next * threads + t] + input[b * threads + threads - 1U - t] * 3U;
        wrong += got[b * threads + t] == expected ? 0U : 1U;
      }
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("a late peer is read only after the opening barrier, and a block that returns early waits for its readers")
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters");
    return;
  }
  umsync_test::memory_baseline const baseline;
  cudaError_t status = cudaSuccess;
  CHECK(run_peer_copies(read_late_peer<true>, race_clusters, 4, status) == 0);
  CHECK(status == cudaSuccess);
  CHECK(run_peer_copies(exit_while_read<true>, race_clusters, 4, status) == 0);
  CHECK(status == cudaSuccess);
}

TEST_CASE("child process - raw: reading a peer before the first cluster barrier" * doctest::skip())
{
  report_raw_race("read before the first barrier", read_late_peer<false>);
}

TEST_CASE("child process - raw: a block exits while a peer reads its shared memory" * doctest::skip())
{
  report_raw_race("exit while a peer reads", exit_while_read<false>);
}

TEST_CASE("the races the cluster types rule out, run raw: how often the result was wrong (reported, not required)")
{
  if (!umsync_test::device_has_clusters()) {
    MESSAGE("this device has no thread block clusters");
    return;
  }
  if (umsync::cuda_tool_attached()) {
    MESSAGE("a CUDA tool instruments this process: it would report the deliberate races; not run here");
    return;
  }
  MESSAGE(child_report("child process - raw: reading a peer before the first cluster barrier"));
  MESSAGE(child_report("child process - raw: a block exits while a peer reads its shared memory"));
}
