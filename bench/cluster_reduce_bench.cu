// Family Q: a cross-block reduction. Every block sums its tile of a float array; the blocks of
// each group (2, 4 or 8 consecutive blocks) then combine their partial sums into one float per
// group, three ways, each raw CUDA against umsync in the same iterations (side_by_side):
//   cluster_reduce_dsmem        the group is a thread block cluster: rank 0 reads the other
//                               blocks' partials from their shared memory. Raw: cooperative
//                               groups' this_cluster() (sync, map_shared_rank) launched with
//                               cudaLaunchKernelEx and a cluster dimension; typed:
//                               cluster_shared_scope and its map() (sync/cluster.hpp), launched
//                               with umsync::launch and a cluster shape
//   cluster_reduce_atomic       each block adds its partial to its group's float with a global
//                               atomicAdd, after a memset of the outputs (raw: cudaMemsetAsync and
//                               <<<>>>; typed: umsync::fill and umsync::launch)
//   cluster_reduce_two_kernels  the partials go to global memory, a second kernel sums each
//                               group's (raw: <<<>>> twice; typed: umsync::launch twice)
// CUDA-event timing of a batch of reductions after the stream is held busy long enough for the
// host to queue the batch (device time: the host-side cost of umsync's calls is the wrapper and
// launch families' question). Args: floats, blocks per group. 1056 blocks of 256 threads (8 per
// SM of the H200); 1,081,344 floats (one float4 per thread, 4.1 MiB: launch-bound) and 69,206,016
// (64 float4 per thread, 264 MiB, above the L2: bandwidth-bound). Counters raw_us and umsync_us
// per reduction, ratio, GB/s and raw_GB/s counted as bytes read. Fresh random input each call
// (in [-1, 1)); every way is checked against a host double reduction in its first warm-up and
// throws when a group's sum is outside float tolerance. A cluster shape the device cannot place
// for the kernel is reported as a skipped row.
#include "support/timing.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/fill.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/sync/cluster.hpp>

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace cg = cooperative_groups;

struct reduce {};

constexpr unsigned blocks = 1056;
constexpr unsigned threads = 256;
constexpr unsigned warps = threads / 32;

__device__ __forceinline__ float warp_sum(float v)
{
  for (unsigned offset = 16; offset > 0; offset /= 2) {
    v += __shfl_down_sync(0xFFFFFFFFU, v, offset);
  }
  return v;
}

/// The sum of this block's tile of `per_block` float4s; valid in thread 0.
__device__ __forceinline__ float block_sum(float4 const* __restrict__ in, std::size_t per_block)
{
  __shared__ float warp_sums[warps];
  float4 const* const tile = in + std::size_t(blockIdx.x) * per_block;
  float sum = 0.0F;
#pragma unroll 8
  for (std::size_t i = threadIdx.x; i < per_block; i += threads) {
    float4 const v = tile[i];
    sum += (v.x + v.y) + (v.z + v.w);
  }
  sum = warp_sum(sum);
  if (threadIdx.x % 32 == 0) {
    warp_sums[threadIdx.x / 32] = sum;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    sum = warp_sum(threadIdx.x < warps ? warp_sums[threadIdx.x] : 0.0F);
  }
  return sum;
}

/// Lanes 0..count-1 of warp 0 of rank 0 hold one partial each; lane 0 writes their sum.
__device__ __forceinline__ void write_group(float v, float* out, unsigned count)
{
  v = warp_sum(v);
  if (threadIdx.x == 0) {
    out[blockIdx.x / count] = v;
  }
}

__global__ void __launch_bounds__(threads) cluster_typed(float4 const* in, float* out, std::size_t per_block)
{
  __shared__ float partial;
  float const sum = block_sum(in, per_block);
  if (threadIdx.x == 0) {
    partial = sum;
  }
  umsync::cluster_shared_scope const scope;  // every block's partial is written and visible
  if (umsync::cluster::block_rank() == 0 && threadIdx.x < 32) {
    unsigned const count = umsync::cluster::block_count();
    float v = 0.0F;
    if (threadIdx.x < count) {
      auto const peer = scope.map(&partial, threadIdx.x);
      v = peer[0];
    }
    write_group(v, out, count);
  }
}  // the closing barrier: no block exits while rank 0 reads its partial

__global__ void __launch_bounds__(threads) cluster_raw(float4 const* in, float* out, std::size_t per_block)
{
  __shared__ float partial;
  float const sum = block_sum(in, per_block);
  if (threadIdx.x == 0) {
    partial = sum;
  }
  cg::cluster_group cluster = cg::this_cluster();
  cluster.sync();
  if (cluster.block_rank() == 0 && threadIdx.x < 32) {
    auto const count = static_cast<unsigned>(cluster.num_blocks());
    float v = 0.0F;
    if (threadIdx.x < count) {
      v = *cluster.map_shared_rank(&partial, threadIdx.x);
    }
    write_group(v, out, count);
  }
  cluster.sync();
}

__global__ void __launch_bounds__(threads)
    atomic_groups(float4 const* in, float* out, std::size_t per_block, unsigned group)
{
  float const sum = block_sum(in, per_block);
  if (threadIdx.x == 0) {
    atomicAdd(&out[blockIdx.x / group], sum);
  }
}

__global__ void __launch_bounds__(threads) block_partials(float4 const* in, float* partials, std::size_t per_block)
{
  float const sum = block_sum(in, per_block);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = sum;
  }
}

__global__ void combine_groups(float const* partials, float* out, unsigned groups, unsigned group)
{
  unsigned const g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < groups) {
    float sum = 0.0F;
    for (unsigned b = 0; b < group; ++b) {
      sum += partials[std::size_t(g) * group + b];
    }
    out[g] = sum;
  }
}

/// Fresh input: each float uniform in [-1, 1) from a hash of (seed, index).
__global__ void fill_random(float4* in, std::size_t vectors, std::uint64_t seed)
{
  auto const next = [](std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
  };
  auto const unit = [](std::uint64_t bits) { return static_cast<float>(bits >> 40) * 0x1p-23F - 1.0F; };
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < vectors;
       i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint64_t const a = next(seed ^ (2 * i));
    std::uint64_t const b = next(seed ^ (2 * i + 1));
    in[i] = float4{unit(a), unit(a << 24), unit(b), unit(b << 24)};
  }
}

enum class way { dsmem, atomic, two_kernels };

constexpr char const* way_name(way w)
{
  return w == way::dsmem    ? "cluster_reduce_dsmem"
         : w == way::atomic ? "cluster_reduce_atomic"
                            : "cluster_reduce_two_kernels";
}

/// The largest cluster the device can place for `kernel` at this block size (0 when it refuses).
int max_cluster_blocks(void (*kernel)(float4 const*, float*, std::size_t))
{
  cudaLaunchConfig_t query{};
  query.gridDim = blocks;
  query.blockDim = threads;
  int most = 0;
  UMSYNC_CUDA_CHECK(cudaOccupancyMaxPotentialClusterSize(&most, reinterpret_cast<void const*>(kernel), &query));
  return most;
}

struct reduction {
  umsync::stream<reduce> s;
  std::size_t vectors;
  std::size_t per_block;
  unsigned group;
  unsigned groups;
  umsync::stream_buffer<float4, reduce> in;
  umsync::stream_buffer<float, reduce> partials;
  umsync::stream_buffer<float, reduce> out;

  reduction(std::size_t floats, unsigned blocks_per_group)
      : vectors(floats / 4),
        per_block(vectors / blocks),
        group(blocks_per_group),
        groups(blocks / blocks_per_group),
        in(vectors, s),
        partials(blocks, s),
        out(groups, s)
  {
    if (floats % (std::size_t{4} * blocks) != 0 || blocks % blocks_per_group != 0) {
      throw std::invalid_argument("cluster_reduce: the floats must fill 1056 blocks of float4s, and the group "
                                  "must divide 1056 blocks");
    }
    fill_random<<<blocks, threads, 0, s.get()>>>(in.data(), vectors, std::random_device{}() * 0x100000001ULL);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
    s.synchronize();
  }

  void raw(way w, cudaStream_t stream)
  {
    if (w == way::dsmem) {
      cudaLaunchAttribute attribute{};
      attribute.id = cudaLaunchAttributeClusterDimension;
      attribute.val.clusterDim.x = group;
      attribute.val.clusterDim.y = 1;
      attribute.val.clusterDim.z = 1;
      cudaLaunchConfig_t launch{};
      launch.gridDim = blocks;
      launch.blockDim = threads;
      launch.stream = stream;
      launch.attrs = &attribute;
      launch.numAttrs = 1;
      UMSYNC_CUDA_CHECK(cudaLaunchKernelEx(&launch, cluster_raw, static_cast<float4 const*>(in.data()), out.data(),
                                           per_block));
    } else if (w == way::atomic) {
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0, out.size_bytes(), stream));
      atomic_groups<<<blocks, threads, 0, stream>>>(in.data(), out.data(), per_block, group);
      UMSYNC_CUDA_CHECK(cudaGetLastError());
    } else {
      block_partials<<<blocks, threads, 0, stream>>>(in.data(), partials.data(), per_block);
      combine_groups<<<(groups + threads - 1) / threads, threads, 0, stream>>>(partials.data(), out.data(), groups,
                                                                               group);
      UMSYNC_CUDA_CHECK(cudaGetLastError());
    }
  }

  void typed(way w)
  {
    if (w == way::dsmem) {
      umsync::launch(s, {.grid = blocks, .block = threads, .cluster = {group, 1, 1}}, cluster_typed, std::as_const(in),
                     out, per_block);
    } else if (w == way::atomic) {
      umsync::fill(s, out, 0.0F);
      umsync::launch(s, {.grid = blocks, .block = threads}, atomic_groups, std::as_const(in), out, per_block, group);
    } else {
      umsync::launch(s, {.grid = blocks, .block = threads}, block_partials, std::as_const(in), partials, per_block);
      umsync::launch(s, {.grid = (groups + threads - 1) / threads, .block = threads}, combine_groups,
                     std::as_const(partials), out, groups, group);
    }
  }

  /// Each group's sum, in double, from the input as the device holds it.
  std::vector<double> expected() const
  {
    std::vector<float4> host(vectors);
    UMSYNC_CUDA_CHECK(cudaMemcpy(host.data(), in.data(), in.size_bytes(), cudaMemcpyDeviceToHost));
    std::vector<double> sums(groups, 0.0);
    std::vector<double> magnitudes(groups, 0.0);
    for (std::size_t i = 0; i < vectors; ++i) {
      std::size_t const g = i / per_block / group;
      float4 const v = host[i];
      sums[g] += double(v.x) + double(v.y) + double(v.z) + double(v.w);
      magnitudes[g] += std::fabs(double(v.x)) + std::fabs(double(v.y)) + std::fabs(double(v.z)) +
                       std::fabs(double(v.w));
    }
    sums.insert(sums.end(), magnitudes.begin(), magnitudes.end());
    return sums;  // the sums, then the sums of magnitudes
  }

  /// Throws unless every group's float sum is within float rounding of the double one (the
  /// output poisoned with NaN before, so a group left unwritten fails too).
  template <class Run>
  void check(Run&& run, std::vector<double> const& want, char const* what)
  {
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, out.size_bytes(), s.get()));
    run();
    std::vector<float> got(groups);
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(got.data(), out.data(), out.size_bytes(), cudaMemcpyDeviceToHost, s.get()));
    s.synchronize();
    for (unsigned g = 0; g < groups; ++g) {
      // Summed in float, up to 256 terms per thread and then a tree: the rounding stays under
      // about 300 float epsilons (2e-5) of the sum of magnitudes.
      double const tolerance = 3e-5 * want[groups + g] + 1e-6;
      if (!(std::fabs(double(got[g]) - want[g]) <= tolerance)) {
        char message[256];
        std::snprintf(message, sizeof message, "%s: group %u of %u sums to %.9g, the host's double sum is %.9g", what,
                      g, groups, double(got[g]), want[g]);
        throw std::runtime_error(message);
      }
    }
  }
};

template <way Way>
void cluster_reduce(benchmark::State& state)
{
  auto const floats = static_cast<std::size_t>(state.range(0));
  auto const group = static_cast<unsigned>(state.range(1));
  if constexpr (Way == way::dsmem) {
    int const most = std::min(max_cluster_blocks(cluster_raw), max_cluster_blocks(cluster_typed));
    if (most < static_cast<int>(group)) {
      state.SkipWithError(("this device places clusters of at most " + std::to_string(most) +
                           " blocks of 256 threads for the kernel")
                              .c_str());
      return;
    }
  }
  reduction r(floats, group);
  auto const run_raw = [&] { r.raw(Way, r.s.get()); };
  auto const run_typed = [&] { r.typed(Way); };
  // The first call of each row checks both ways on its fresh input; later calls only warm.
  static std::set<std::pair<std::size_t, unsigned>> checked;
  if (checked.insert({floats, group}).second) {
    std::vector<double> const want = r.expected();
    r.check(run_raw, want, (std::string(way_name(Way)) + ", raw").c_str());
    r.check(run_typed, want, (std::string(way_name(Way)) + ", umsync").c_str());
  } else {
    run_raw();
    run_typed();
    r.s.synchronize();
  }
  std::size_t const bytes = r.in.size_bytes();
  int const batch = bytes < (std::size_t{64} << 20) ? 32 : 2;  // reductions per sample
  int const launches = Way == way::dsmem ? 1 : 2;
  // Held busy while the host queues the batch, so the events time the device's work.
  auto const queue_hold = static_cast<std::uint64_t>(batch * launches) * 2'000;
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] {
          umsync_bench::block_stream(r.s.get(), queue_hold);
          return umsync_bench::time_on_device(r.s.get(), [&](cudaStream_t stream) {
            for (int k = 0; k < batch; ++k) {
              r.raw(Way, stream);
            }
          });
        },
        [&] {
          umsync_bench::block_stream(r.s.get(), queue_hold);
          return umsync_bench::time_on_device(r.s.get(), [&](cudaStream_t) {
            for (int k = 0; k < batch; ++k) {
              run_typed();
            }
          });
        });
  }
  compare.report(batch);
  if (state.counters.count("umsync_us") != 0) {
    state.counters["GB/s"] = static_cast<double>(bytes) / (state.counters["umsync_us"].value * 1e-6) * 1e-9;
    state.counters["raw_GB/s"] = static_cast<double>(bytes) / (state.counters["raw_us"].value * 1e-6) * 1e-9;
  }
}

void reduce_sizes(benchmark::internal::Benchmark* b)
{
  for (std::int64_t const floats : {std::int64_t{blocks} * threads * 4, std::int64_t{blocks} * threads * 4 * 64}) {
    for (std::int64_t const group : {2, 4, 8}) {
      b->Args({floats, group});
    }
  }
}

}  // namespace

BENCHMARK(cluster_reduce<way::dsmem>)
    ->Name("cluster_reduce_dsmem")
    ->Apply(reduce_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(cluster_reduce<way::atomic>)
    ->Name("cluster_reduce_atomic")
    ->Apply(reduce_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(cluster_reduce<way::two_kernels>)
    ->Name("cluster_reduce_two_kernels")
    ->Apply(reduce_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
