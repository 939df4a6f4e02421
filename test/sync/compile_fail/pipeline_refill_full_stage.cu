// Rule: a full stage goes back to the producer only through release(); the producer refills it after
// acquire() has seen every consumer's release.
// expect-error: umsync: a full stage is released by the consumer (release()); the producer refills it after acquire() has seen the release
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
      std::move(stage).fill(in);
#endif
    }
  }
}
