// Rule: a pipeline stage is read only after the consumer's wait() returned it full; the producer's
// acquired stage is empty and belongs to the bulk copy that fills it.
// expect-error: umsync: a pipeline stage is read only after the consumer's wait() returned it full: an acquired (empty) stage belongs to the bulk copy that fills it
#include <umsync/sync/pipeline.hpp>

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
        auto stage = producer.acquire(k % 2);
#if !defined(UMSYNC_CF_CONTROL)
        out[k] = stage[0];
#endif
        std::move(stage).fill(in + k * 256);
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
