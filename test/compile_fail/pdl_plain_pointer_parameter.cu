// Rule: a kernel launched with programmatic dependent launch says of each buffer whether earlier
// work on the stream may still use it (pending<T>) or not (independent<T>). A plain pointer
// parameter could be read before the wait, so launch_dependent refuses the kernel.
// expect-error: umsync: a kernel launched with launch_dependent takes memory as umsync::pending<T> (earlier work on the stream may still use it; opened after the wait) or umsync::independent<T>, never as a plain pointer (pdl.hpp)
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

struct compute {};

#if defined(UMSYNC_CF_CONTROL)
__global__ void scale(umsync::pending<float const> in, umsync::independent<float> out, int n)
{
  int const i = static_cast<int>(threadIdx.x);
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  if (i < n) out[i] = 2.0F * in.after(done)[i];
}
#else
__global__ void scale(float const* in, float* out, int n)
{
  int const i = static_cast<int>(threadIdx.x);
  if (i < n) out[i] = 2.0F * in[i];
}
#endif

void run(umsync::stream<compute> const& s, umsync::stream_buffer<float, compute> const& in,
         umsync::stream_buffer<float, compute>& out)
{
  umsync::launch_dependent(s, {.grid = 1, .block = 64}, scale, in, out, 64);
}
