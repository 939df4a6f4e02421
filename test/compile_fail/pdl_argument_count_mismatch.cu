// Rule: launch_dependent, like launch, takes one argument per kernel parameter.
// expect-error: umsync: launch needs one argument per kernel parameter
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

__global__ void scale(umsync::pending<float const> in, umsync::independent<float> out, int n)
{
  int const i = static_cast<int>(threadIdx.x);
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  if (i < n) out[i] = 2.0F * in.after(done)[i];
}

void run(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute> const& in,
         umsync::stream_buffer<float, compute>& out)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::launch_dependent(s, {.grid = 1, .block = 64}, scale, in, out, 64);
#else
  umsync::launch_dependent(s, {.grid = 1, .block = 64}, scale, in, out);  // n forgotten
#endif
}
