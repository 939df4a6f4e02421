// Pairs of kernels for scripts/ci/sass-check.sh: the kernels bench/tma_pipeline_bench.cu times
// (family T), their bodies from bench/support/tma_pipeline.cuh. raw_tma_copy_<n> /
// umsync_tma_copy_<n>: the copy pipeline (4 consumer warps, one round of mix()) of n stages;
// raw_tma_compute_<n> / umsync_tma_compute_<n>: the producer/consumer kernel (8 consumer warps, 32
// rounds). The raw bodies are written in cuda::ptx as a hand-written TMA kernel would be. The
// script requires each pair to give identical SASS. Not part of any test executable.
#include "../../bench/support/tma_pipeline.cuh"

#include <cstdint>

namespace {
using umsync_bench::tma::compute_shape;
using umsync_bench::tma::copy_shape;
}  // namespace

#define UMSYNC_TMA_SASS_PAIR(name, stages, shape)                                                    \
  extern "C" __global__ void __launch_bounds__(32 * (1 + shape::consumer_warps))                     \
      raw_##name##_##stages(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)             \
  {                                                                                                  \
    umsync_bench::tma::raw_pipeline<stages, shape::consumer_warps, shape::rounds>(in, out, tiles);   \
  }                                                                                                  \
  extern "C" __global__ void __launch_bounds__(32 * (1 + shape::consumer_warps))                     \
      umsync_##name##_##stages(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)          \
  {                                                                                                  \
    umsync_bench::tma::typed_pipeline<stages, shape::consumer_warps, shape::rounds>(in, out, tiles); \
  }

UMSYNC_TMA_SASS_PAIR(tma_copy, 1, copy_shape)
UMSYNC_TMA_SASS_PAIR(tma_copy, 2, copy_shape)
UMSYNC_TMA_SASS_PAIR(tma_copy, 4, copy_shape)
UMSYNC_TMA_SASS_PAIR(tma_compute, 1, compute_shape)
UMSYNC_TMA_SASS_PAIR(tma_compute, 2, compute_shape)
UMSYNC_TMA_SASS_PAIR(tma_compute, 4, compute_shape)
