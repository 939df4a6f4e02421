// Rule: a stage handle is one acquire() or wait(), consumed by its own fill() or release(); a
// handle is not reassigned to the next wait (declare it in the loop instead).
// expect-error: umsync: a pipeline stage handle cannot be reassigned: each handle is one acquire() or wait(), consumed by its own fill() or release()
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
#if defined(UMSYNC_CF_CONTROL)
    for (unsigned k = 0; k < tiles; ++k) {
      auto stage = consumer.wait(k % 2);
      out[k * 256 + threadIdx.x - 32] = stage[threadIdx.x - 32];
      std::move(stage).release();
    }
#else
    auto stage = consumer.wait(0);
    for (unsigned k = 0; k < tiles; ++k) {
      out[k * 256 + threadIdx.x - 32] = stage[threadIdx.x - 32];
      std::move(stage).release();
      stage = consumer.wait((k + 1) % 2);
    }
#endif
  }
}
