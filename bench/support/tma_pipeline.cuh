// What bench/tma_pipeline_bench.cu, bench/tma_pipeline_cutlass.cu and test/sass/tma_pipeline_sass.cu
// share: the tile, the transform, the kernel shapes, the typed and the hand-written pipeline's
// kernel bodies (the SASS check compiles these very bodies, so the benchmarked pair is the
// checked pair), and the CUTLASS launcher (defined in tma_pipeline_cutlass.cu, built only when
// configure found CUTLASS: UMSYNC_BENCH_CUTLASS).
#pragma once

#include <umsync/sync/pipeline.hpp>

#include <cuda/ptx>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace umsync_bench::tma {

/// One stage: 2048 32-bit words, 8 KiB, one cp.async.bulk.
constexpr unsigned words = 2048;
// Prvalues: cuda::ptx takes sizes by reference, which would odr-use a host constant.
__host__ __device__ constexpr std::uint32_t tile_bytes() { return words * sizeof(std::uint32_t); }

/// The kernel shapes: warp 0's lane 0 produces, `ConsumerWarps` warps after it consume, each
/// element goes through `Rounds` rounds of mix(). The copy pipeline: 4 consumer warps, 1 round
/// (bandwidth-bound); the producer/consumer kernel: 8 consumer warps, 32 rounds (the consumers'
/// work about as long as the tile's load, so the stages decide how much of it overlaps).
struct copy_shape {
  static constexpr unsigned consumer_warps = 4;
  static constexpr unsigned rounds = 1;
};
struct compute_shape {
  static constexpr unsigned consumer_warps = 8;
  static constexpr unsigned rounds = 32;
};

/// Element i of tile t, `rounds` times: an integer hash, so the host reference is exact.
__host__ __device__ __forceinline__ std::uint32_t mix(std::uint32_t x, std::uint32_t t, unsigned rounds)
{
  for (unsigned r = 0; r < rounds; ++r) {
    x = x * 2654435761U + (t ^ r);
    x ^= x >> 13;
  }
  return x;
}

__host__ __device__ constexpr umsync::warp_mask_t consumer_mask(unsigned warps) { return ((1U << warps) - 1U) << 1U; }

/// The typed pipeline's kernel body: block b takes tiles b, b + gridDim.x, ...; out[t][i] =
/// mix(in[t][i], t, Rounds). Warp 0's lane 0 produces, warps 1..ConsumerWarps consume.
template <unsigned Stages, unsigned ConsumerWarps, unsigned Rounds>
__device__ __forceinline__ void typed_pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<std::uint32_t, words, Stages> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, consumer_mask(ConsumerWarps)>(storage).publish();
  unsigned const warp = threadIdx.x / 32U;
  if (warp == 0) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      unsigned j = 0;
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
        producer.acquire(j % Stages).fill(in + std::size_t(t) * words);
      }
    }
  } else {
    auto consumer = pipe.consumer(std::move(phases));
    unsigned const thread = threadIdx.x - 32U;
    unsigned j = 0;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
      auto stage = consumer.wait(j % Stages);
      for (unsigned i = thread; i < words; i += 32 * ConsumerWarps) {
        out[std::size_t(t) * words + i] = mix(stage[i], t, Rounds);
      }
      std::move(stage).release();
    }
  }
}

__device__ __forceinline__ void raw_wait(std::uint64_t* bar, std::uint32_t parity)
{
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, bar, parity)) {
  }
}

template <unsigned Stages>
struct raw_storage {
  std::uint64_t bars[2 * Stages];  // full [0, Stages), empty [Stages, 2 * Stages)
  alignas(128) std::uint32_t tiles[Stages][words];
};

/// The hand-written twin (cuda::ptx): one parity word per role, every stage started released by the
/// initialising thread's arrival with the consumer count (as init_pipeline does).
template <unsigned Stages, unsigned ConsumerWarps, unsigned Rounds>
__device__ __forceinline__ void raw_pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ raw_storage<Stages> storage;
  std::uint32_t const consumers = 32 * ConsumerWarps;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {  // the initialising thread, as umsync's
    for (unsigned s = 0; s < Stages; ++s) {
      cuda::ptx::mbarrier_init(&storage.bars[s], 1);
      cuda::ptx::mbarrier_init(&storage.bars[Stages + s], consumers);
      static_cast<void>(cuda::ptx::mbarrier_arrive(&storage.bars[Stages + s], consumers));
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  unsigned const warp = threadIdx.x / 32U;
  if (warp == 0) {
    if (threadIdx.x == 0) {
      std::uint32_t parities = 0;
      unsigned j = 0;
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
        std::size_t const s = j % Stages;
        raw_wait(&storage.bars[Stages + s], (parities >> (Stages + s)) & 1U);
        parities ^= 1U << (Stages + s);
        cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, storage.tiles[s],
                                 in + std::size_t(t) * words, tile_bytes(), &storage.bars[s]);
        static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(
            cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &storage.bars[s], tile_bytes()));
      }
    }
  } else {
    std::uint32_t parities = 0;
    unsigned const thread = threadIdx.x - 32U;
    unsigned j = 0;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
      std::size_t const s = j % Stages;
      raw_wait(&storage.bars[s], (parities >> s) & 1U);
      parities ^= 1U << s;
      std::uint32_t const* const stage = storage.tiles[s];
      for (unsigned i = thread; i < words; i += 32 * ConsumerWarps) {
        out[std::size_t(t) * words + i] = mix(stage[i], t, Rounds);
      }
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      static_cast<void>(cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                   cuda::ptx::space_shared, &storage.bars[Stages + s]));
    }
  }
}

/// Launches the CUTLASS (cutlass::PipelineTmaAsync) version of the pipeline on `stream`:
/// `stages` 1, 2 or 4, `consumer_warps` and `rounds` those of copy_shape or compute_shape; out[t
/// * words + i] = mix(in[t * words + i], t, rounds) for every tile t < tiles. Returns false for
/// a shape it was not built for.
bool launch_cutlass_pipeline(unsigned stages, unsigned consumer_warps, unsigned rounds, unsigned blocks,
                             std::uint32_t const* in, std::uint32_t* out, unsigned tiles, cudaStream_t stream);

}  // namespace umsync_bench::tma
