// Rule: a dependent kernel opens pending memory only with the proof of griddepcontrol.wait, and
// only wait_for_prerequisite_grids() makes that proof: a forged one does not compile.
// expect-error: umsync: a prerequisites_complete proof comes only from umsync::wait_for_prerequisite_grids(); it cannot be made, so pending memory opens only after the wait
#include <umsync/pdl.hpp>

__global__ void copy_out(umsync::pending<float const> in, umsync::independent<float> out, int n)
{
  int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
#if defined(UMSYNC_CF_CONTROL)
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
#else
  umsync::prerequisites_complete const done{};  // no wait: the primary may not have written `in` yet
#endif
  out[i] = in.after(done)[i];
}
