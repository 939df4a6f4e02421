// Rule 1 holds for memory umsync did not allocate: a user's type whose umsync_memory binds it to
// stream tag A cannot be used in a launch on stream tag B (support/user_memory.hpp).
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include "../support/user_memory.hpp"

#include <umsync/launch.hpp>
#include <umsync/stream.hpp>

struct producer {};
struct consumer {};

__global__ void fill(float* out, int n)
{
  if (threadIdx.x < n) out[threadIdx.x] = 1.0f;
}

void use(umsync::stream<producer> const& ps, umsync::stream<consumer> const& cs, float* memory)
{
  userlib::stream_array<float, producer> data{memory, 32};
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch(ps, {.grid = 1, .block = 32}, fill, data, 32);
#else
  umsync::launch(cs, {.grid = 1, .block = 32}, fill, data, 32);
#endif
  static_cast<void>(ps);
  static_cast<void>(cs);
}
