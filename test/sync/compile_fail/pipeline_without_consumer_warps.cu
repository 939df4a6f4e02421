// Rule: a pipeline needs at least one producer warp and one consumer warp: with an empty mask no
// thread arrives on the stages' empty barriers (or none fills them), and the other role waits forever.
// expect-error: umsync: a pipeline needs at least one producer warp and one consumer warp
#include <umsync/sync/pipeline.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr umsync::warp_mask_t consumers = 0x2;
#else
constexpr umsync::warp_mask_t consumers = 0x0;  // warp 0 consumes what it produced
#endif

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
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
      for (unsigned i = threadIdx.x - 32; i < 256; i += 32) {
        out[k * 256 + i] = stage[i];
      }
      std::move(stage).release();
    }
  }
}
