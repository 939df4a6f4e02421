// Pairs of kernels for scripts/ci/sass-check.sh: raw_pipeline_<n> is a warp-specialized copy-transform
// pipeline of n stages written with CCCL's cuda::ptx as a hand-written TMA kernel would be (a full
// and an empty mbarrier per stage, one parity bit per barrier), umsync_pipeline_<n> the same kernel
// on umsync's pipeline (sync/pipeline.hpp). Warp 0's lane 0 produces, warps 1..4 consume. The
// script requires each pair to give identical SASS. Not part of any test executable.
#include <umsync/sync/pipeline.hpp>

#include <cuda/ptx>

#include <cstdint>

namespace {

constexpr unsigned words = 2048;
constexpr unsigned consumer_warps = 4;
constexpr umsync::warp_mask_t producer_mask = 0x1;
constexpr umsync::warp_mask_t consumer_mask = 0x1E;
// Prvalues: cuda::ptx takes sizes and counts by reference, which would odr-use a host constant.
__host__ __device__ constexpr std::uint32_t tile_bytes() { return words * sizeof(std::uint32_t); }
__host__ __device__ constexpr std::uint32_t consumer_threads() { return consumer_warps * 32U; }

__device__ __forceinline__ std::uint32_t transform(std::uint32_t x, unsigned k) { return x * 2654435761U + k; }

__device__ __forceinline__ void raw_wait(std::uint64_t* bar, std::uint32_t parity)
{
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cta, bar, parity)) {
  }
}

// The raw layout is the typed one: 2 * Stages barrier words, then the 128-byte-aligned tiles.
template <unsigned Stages>
struct raw_storage {
  std::uint64_t bars[2 * Stages];  // full [0, Stages), empty [Stages, 2 * Stages)
  alignas(128) std::uint32_t tiles[Stages][words];
};

// Block b handles tiles b, b + gridDim.x, ...; out[t][i] = transform(in[t][i], t).
template <unsigned Stages>
__device__ __forceinline__ void raw_pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ raw_storage<Stages> storage;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
    for (unsigned s = 0; s < Stages; ++s) {
      cuda::ptx::mbarrier_init(&storage.bars[s], 1);
      cuda::ptx::mbarrier_init(&storage.bars[Stages + s], consumer_threads());
      // Every stage starts released: phase 0 of its empty barrier completes now.
      static_cast<void>(cuda::ptx::mbarrier_arrive(&storage.bars[Stages + s], consumer_threads()));
    }
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __syncthreads();
  unsigned const warp = threadIdx.x / 32U;
  if (warp == 0) {
    if (threadIdx.x == 0) {
      std::uint32_t parities = 0;  // the phase bits of the empty barriers
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
    std::uint32_t parities = 0;  // the phase bits of the full barriers
    unsigned const thread = threadIdx.x - 32U;
    unsigned j = 0;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
      std::size_t const s = j % Stages;
      raw_wait(&storage.bars[s], (parities >> s) & 1U);
      parities ^= 1U << s;
      std::uint32_t const* const stage = storage.tiles[s];
      for (unsigned i = thread; i < words; i += consumer_threads()) {
        out[std::size_t(t) * words + i] = transform(stage[i], t);
      }
      cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);
      static_cast<void>(cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                                   cuda::ptx::space_shared, &storage.bars[Stages + s]));
    }
  }
}

template <unsigned Stages>
__device__ __forceinline__ void typed_pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<std::uint32_t, words, Stages> storage;
  auto [pipe, phases] = umsync::init_pipeline<producer_mask, consumer_mask>(storage).publish();
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
      for (unsigned i = thread; i < words; i += consumer_threads()) {
        out[std::size_t(t) * words + i] = transform(stage[i], t);
      }
      std::move(stage).release();
    }
  }
}

}  // namespace

extern "C" __global__ void raw_pipeline_1(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  raw_pipeline<1>(in, out, tiles);
}
extern "C" __global__ void umsync_pipeline_1(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  typed_pipeline<1>(in, out, tiles);
}
extern "C" __global__ void raw_pipeline_2(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  raw_pipeline<2>(in, out, tiles);
}
extern "C" __global__ void umsync_pipeline_2(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  typed_pipeline<2>(in, out, tiles);
}
extern "C" __global__ void raw_pipeline_4(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  raw_pipeline<4>(in, out, tiles);
}
extern "C" __global__ void umsync_pipeline_4(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  typed_pipeline<4>(in, out, tiles);
}
