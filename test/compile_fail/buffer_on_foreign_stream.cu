// Rule 1: a buffer bound to stream tag A cannot be used in a launch on stream tag B; the way
// across is stream_edge::transfer (event record on A, wait on B).
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/launch.hpp>
#include <umsync/stream_edge.hpp>

struct producer {};
struct consumer {};

__global__ void fill(float* out, int n)
{
  if (threadIdx.x < n) out[threadIdx.x] = 1.0f;
}

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(32, ps);
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_edge edge(ps, cs);
  auto on_consumer = edge.transfer(std::move(data));
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, on_consumer, 32);
#else
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, data, 32);
#endif
}
