// Rule: a stage the consumer read goes back to the producer only through release(), and the
// producer refills a stage only through its own acquire(): an acquired (empty) stage handle is not
// made from a waited (full) one.
// expect-error: umsync: a read (full) pipeline stage becomes a refill target only through release() and the producer's own acquire(): a waited stage's handle is never turned into, or assigned to or from, an acquired one
#include <umsync/sync/pipeline.hpp>

template <class Stage>
__device__ void refill_from(Stage&& target, float const* source)
{
  std::move(target).fill(source);
}

__global__ void kernel(float const* in, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> storage;
  auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      for (unsigned k = 0; k < tiles; ++k) {
        refill_from(producer.acquire(k % 2), in + k * 256);
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
      umsync::empty_stage<float, 256> target = std::move(stage);  // the read stage as a refill target
      static_cast<void>(target.index());
#endif
    }
  }
}
