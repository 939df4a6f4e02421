// Rule: the pipeline's producer acquires empty stages; only a consumer waits for a full one.
// expect-error: umsync: the pipeline's producer acquires empty stages (acquire()); only a consumer waits for a full one
#include <umsync/sync/pipeline.hpp>

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
#if defined(UMSYNC_CF_CONTROL)
        producer.acquire(k % 2).fill(in + k * 256);
#else
        producer.wait(k % 2);
#endif
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
