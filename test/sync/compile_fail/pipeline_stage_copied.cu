// Rule: a waited stage is released once: its handle cannot be copied (a copy would release it twice).
// expect-error: umsync: a pipeline stage handle cannot be copied: each stage is released once; move it (std::move) into release()
#include <umsync/sync/pipeline.hpp>

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();
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
#if defined(UMSYNC_CF_CONTROL)
      std::move(stage).release();
#else
      auto copy = stage;
      std::move(stage).release();
      std::move(copy).release();
#endif
    }
  }
}
