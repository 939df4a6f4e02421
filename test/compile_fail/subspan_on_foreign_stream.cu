// Rule 1 holds for slices: subspan, first and last of memory bound to stream tag A keep the tag,
// so a slice of a buffer allocated on stream<A> cannot be used in a launch on stream tag B.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

__global__ void fill(float* out, int n)
{
  if (threadIdx.x < n) out[threadIdx.x] = 1.0f;
}

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  umsync::stream_buffer<float, producer> data(96, ps);
  auto const head = data.span().first(32);
  auto const middle = data.span().subspan(32, 32);
  auto const tail = data.span().last(32);
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(ps, {.grid = 1, .block = 32}, fill, head, 32);
  umsync::launch(ps, {.grid = 1, .block = 32}, fill, middle, 32);
  umsync::launch(ps, {.grid = 1, .block = 32}, fill, tail, 32);
#else
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, head, 32);
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, middle, 32);
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, tail, 32);
#endif
  static_cast<void>(cs);
}
