// The CUTLASS side of bench/tma_pipeline_bench.cu: the same warp-specialized TMA pipeline on
// cutlass::PipelineTmaAsync (cutlass/pipeline/sm90_pipeline.hpp), CUTLASS's own barriers and
// phase bookkeeping (PipelineState, the producer starting at phase 1), the copy issued by cute's
// SM90_BULK_COPY_G2S on the stage's full barrier. Built only when configure found CUTLASS's
// headers (cmake/umsync-cutlass.cmake), in an object library of its own: CUTLASS is included as
// a system folder and not held to umsync's warnings-as-errors.
//
// One difference from CUTLASS's GEMM kernels, where the consumers read shared memory through
// wgmma: here generic loads read the stage and the next refill is an async-proxy write, so each
// consumer thread issues cutlass::arch::fence_view_async_shared() (fence.proxy.async.shared::cta)
// before consumer_release(), as umsync's release() and the raw twin do (DeepEP #642).
#include "support/tma_pipeline.cuh"

#include <cute/arch/copy_sm90_tma.hpp>
#include <cute/tensor.hpp>
#include <cutlass/arch/barrier.h>
#include <cutlass/pipeline/sm90_pipeline.hpp>

#include <cstddef>
#include <cstdint>

namespace umsync_bench::tma {
namespace {

template <unsigned Stages>
struct cutlass_storage {
  typename cutlass::PipelineTmaAsync<Stages>::SharedStorage barriers;
  alignas(128) std::uint32_t tiles[Stages][words];
};

template <unsigned Stages, unsigned ConsumerWarps, unsigned Rounds>
__global__ void __launch_bounds__(32 * (1 + ConsumerWarps))
    cutlass_pipeline(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  using pipeline_type = cutlass::PipelineTmaAsync<Stages>;
  // CUTLASS's barriers have no default constructor: its kernels place the storage in raw bytes.
  __shared__ alignas(cutlass_storage<Stages>) unsigned char bytes[sizeof(cutlass_storage<Stages>)];
  auto& storage = *reinterpret_cast<cutlass_storage<Stages>*>(bytes);
  unsigned const warp = threadIdx.x / 32U;
  typename pipeline_type::Params params;
  params.transaction_bytes = tile_bytes();
  params.role = warp == 0 ? pipeline_type::ThreadCategory::Producer : pipeline_type::ThreadCategory::Consumer;
  params.is_leader = threadIdx.x == 0;
  params.num_consumers = 32 * ConsumerWarps;
  pipeline_type pipeline(storage.barriers, params, cute::Shape<cute::_1, cute::_1, cute::_1>{});
  __syncthreads();  // the barriers' initialisation (and its fence) seen by every thread
  if (warp == 0) {
    if (threadIdx.x == 0) {
      auto state = cutlass::make_producer_start_state<pipeline_type>();
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
        pipeline.producer_acquire(state);  // waits empty, then arrive.expect_tx of the tile
        cute::SM90_BULK_COPY_G2S::copy(in + std::size_t(t) * words, pipeline.producer_get_barrier(state),
                                       storage.tiles[state.index()], tile_bytes());
        ++state;
      }
    }
  } else {
    typename pipeline_type::PipelineState state;  // stage 0, phase 0
    unsigned const thread = threadIdx.x - 32U;
    for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x) {
      pipeline.consumer_wait(state);
      std::uint32_t const* const stage = storage.tiles[state.index()];
      for (unsigned i = thread; i < words; i += 32 * ConsumerWarps) {
        out[std::size_t(t) * words + i] = mix(stage[i], t, Rounds);
      }
      cutlass::arch::fence_view_async_shared();
      pipeline.consumer_release(state);
      ++state;
    }
  }
}

template <unsigned ConsumerWarps, unsigned Rounds>
bool launch_shape(unsigned stages, unsigned blocks, std::uint32_t const* in, std::uint32_t* out, unsigned tiles,
                  cudaStream_t stream)
{
  constexpr unsigned threads = 32 * (1 + ConsumerWarps);
  switch (stages) {
    case 1: cutlass_pipeline<1, ConsumerWarps, Rounds><<<blocks, threads, 0, stream>>>(in, out, tiles); return true;
    case 2: cutlass_pipeline<2, ConsumerWarps, Rounds><<<blocks, threads, 0, stream>>>(in, out, tiles); return true;
    case 4: cutlass_pipeline<4, ConsumerWarps, Rounds><<<blocks, threads, 0, stream>>>(in, out, tiles); return true;
    default: return false;
  }
}

}  // namespace

bool launch_cutlass_pipeline(unsigned stages, unsigned consumer_warps, unsigned rounds, unsigned blocks,
                             std::uint32_t const* in, std::uint32_t* out, unsigned tiles, cudaStream_t stream)
{
  if (consumer_warps == copy_shape::consumer_warps && rounds == copy_shape::rounds) {
    return launch_shape<copy_shape::consumer_warps, copy_shape::rounds>(stages, blocks, in, out, tiles, stream);
  }
  if (consumer_warps == compute_shape::consumer_warps && rounds == compute_shape::rounds) {
    return launch_shape<compute_shape::consumer_warps, compute_shape::rounds>(stages, blocks, in, out, tiles, stream);
  }
  return false;
}

}  // namespace umsync_bench::tma
