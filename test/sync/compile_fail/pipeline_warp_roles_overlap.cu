// Rule: a warp is producer or consumer of a pipeline, not both (the consumer count would include
// the producer's warp, whose threads never release).
// expect-error: umsync: a warp cannot be both producer and consumer of a pipeline
#include <umsync/sync/pipeline.hpp>

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
#if defined(UMSYNC_CF_CONTROL)
  constexpr umsync::warp_mask_t consumers = 0x1E;
#else
  constexpr umsync::warp_mask_t consumers = 0x1F;  // warp 0 is the producer's too
#endif
  auto [pipe, phases] = umsync::init_pipeline<0x1, consumers>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
        producer.acquire(k % 2).fill(in + k * 256);
      }
    }
  } else {
    auto consumer = pipe.consumer(std::move(phases));
    for (unsigned k = 0; k < tiles; ++k) {
      auto stage = consumer.wait(k % 2);
      out[k * 256 + threadIdx.x - 32] = stage[threadIdx.x - 32];
      std::move(stage).release();
    }
  }
}
