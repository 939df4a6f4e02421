// Rule: a stage the consumer read goes back to the producer only through release(), and the
// producer refills a stage only through its own acquire(), which waits for every consumer's
// release: a read (full) stage's handle is not reused for the stage to refill.
// expect-error: umsync: a read (full) pipeline stage becomes a refill target only through release() and the producer's own acquire(): a waited stage's handle is never turned into, or assigned to or from, an acquired one
#include <umsync/sync/pipeline.hpp>

// A relay: warp 0 fills pipeline a, warp 1 reads it and (lane 0) fills pipeline b, warp 2 reads b.
__global__ void relay(float const* in, float const* more, float* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<float, 256, 2> a_storage;
  __shared__ umsync::pipeline_storage<float, 256, 2> b_storage;
  auto [a, a_phases] = umsync::init_pipeline<0x1, 0x2>(a_storage).publish();
  auto [b, b_phases] = umsync::init_pipeline<0x2, 0x4>(b_storage).publish();
  unsigned const warp = threadIdx.x / 32;
  unsigned const lane = threadIdx.x % 32;
  if (warp == 0 && lane == 0) {
    auto producer = a.producer(std::move(a_phases));
    for (unsigned k = 0; k < tiles; ++k) {
      producer.acquire(k % 2).fill(in + k * 256);
    }
  } else if (warp == 1) {
    auto consumer = a.consumer(std::move(a_phases));
    for (unsigned k = 0; k < tiles; ++k) {
      auto read = consumer.wait(k % 2);
      out[k * 256 + lane] = read[lane];
#if defined(UMSYNC_CF_CONTROL)
      std::move(read).release();
#endif
      if (lane == 0) {
        auto producer = b.producer(std::move(b_phases));
#if defined(UMSYNC_CF_CONTROL)
        producer.acquire(k % 2).fill(more + k * 256);
#else
        read = producer.acquire(k % 2);  // the read stage's handle reused as the refill target
#endif
      }
    }
  } else if (warp == 2) {
    auto consumer = b.consumer(std::move(b_phases));
    for (unsigned k = 0; k < tiles; ++k) {
      auto stage = consumer.wait(k % 2);
      out[(tiles + k) * 256 + lane] = stage[lane];
      std::move(stage).release();
    }
  }
}
