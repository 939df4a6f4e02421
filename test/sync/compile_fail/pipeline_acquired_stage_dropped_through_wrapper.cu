// Rule: an acquired stage is filled, or the consumers wait for it forever; the stage type is
// nodiscard, so a stage acquired through the caller's own function cannot be dropped either.
// expect-error: umsync: an acquired pipeline stage must be filled (fill()), or the consumers wait for it forever
#include <umsync/sync/pipeline.hpp>

template <class Producer>
__device__ auto my_acquire(Producer& producer, unsigned k)
{
  return producer.acquire(k % 2);
}

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
#if defined(UMSYNC_CF_CONTROL)
        my_acquire(producer, k).fill(in + k * 256);
#else
        my_acquire(producer, k);
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
