// Rule 1 through generic code: a generic lambda that launches whatever buffer it is given on a
// consumer stream is checked where it is instantiated, with the rule's message.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

__global__ void fill(float* out, int n)
{
  if (static_cast<int>(threadIdx.x) < n) out[threadIdx.x] = 1.0F;
}

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs)
{
  auto const fill_on = [](auto const& stream, auto& buffer) {
    umsync::launch(stream, {.grid = 1, .block = 64}, fill, buffer, 64);
  };
  umsync::stream_buffer<float, producer> x(64, ps);
#if defined(UMSYNC_CF_CONTROL)
  fill_on(ps, x);
#else
  fill_on(cs, x);
#endif
}
