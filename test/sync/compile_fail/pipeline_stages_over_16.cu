// Rule: a pipeline has 1 to 16 stages: each stage takes a full and an empty barrier, and one
// set of transaction barriers holds at most 32 (publish() of 2 * 24 barriers says so as well).
// expect-error: umsync: a pipeline has 1 to 16 stages (a full and an empty barrier each, at most 32 barriers)
// expect-error: umsync: a transaction barrier set holds 1 to 32 barriers
#include <umsync/sync/pipeline.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned stages = 16;
#else
constexpr unsigned stages = 24;  // small tiles, so many in flight
#endif

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 64, stages> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x2>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
        producer.acquire(k % stages).fill(in + k * 64);
      }
    }
  } else {
    auto consumer = pipe.consumer(std::move(phases));
    for (unsigned k = 0; k < tiles; ++k) {
      auto stage = consumer.wait(k % stages);
      out[k * 64 + threadIdx.x - 32] = stage[threadIdx.x - 32] + stage[threadIdx.x];
      std::move(stage).release();
    }
  }
}
