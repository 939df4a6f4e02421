// Rule: every stage a consumer waited for is released, or the producer never refills it; the stage
// type is nodiscard, so a waited stage returned through the caller's own function cannot be dropped.
// expect-error: umsync: a waited pipeline stage must be released (release()) once it is read, or the producer never refills it
#include <umsync/sync/pipeline.hpp>

template <class Consumer>
__device__ auto my_wait(Consumer& consumer, unsigned k)
{
  return consumer.wait(k % 2);
}

__global__ void kernel(float const* in, unsigned tiles)
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
#if defined(UMSYNC_CF_CONTROL)
      std::move(my_wait(consumer, k)).release();
#else
      my_wait(consumer, k);
#endif
    }
  }
}
