// Rule: only the pipeline's producer acquires a stage; a consumer waits for it full.
// expect-error: umsync: only the pipeline's producer acquires a stage; a consumer waits for it full (wait())
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
#if !defined(UMSYNC_CF_CONTROL)
      consumer.acquire(k % 2);
#endif
      auto stage = consumer.wait(k % 2);
      out[k * 256 + threadIdx.x - 32] = stage[threadIdx.x - 32];
      std::move(stage).release();
    }
  }
}
