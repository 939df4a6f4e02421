// Rule: a dependent kernel (programmatic dependent launch) touches memory that earlier work on
// its stream may still use only after griddepcontrol.wait. pending<T> has no way to its elements
// but after(wait_for_prerequisite_grids()): reading it first, the race of NVIDIA/cccl #5297,
// does not compile.
// expect-error: umsync: pending memory of a dependent kernel is touched before the wait; earlier work on the stream may still use it: open it with after(umsync::wait_for_prerequisite_grids())
#include <umsync/pdl.hpp>

__global__ void copy_out(umsync::pending<float const> in, umsync::independent<float> out, int n)
{
  int const i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
#if defined(UMSYNC_CF_CONTROL)
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  out[i] = in.after(done)[i];
#else
  out[i] = in[i];  // before the wait: the primary may not have written it yet
  static_cast<void>(umsync::wait_for_prerequisite_grids());
#endif
}
