// Rule: a kernel launched with programmatic dependent launch says of each tensor map whether
// earlier grids may still write its tensor (pending<tensor_map<...>>) or not
// (independent<tensor_map<...>>). A bare map could be copied through before the wait (NVIDIA/cutlass
// #2760), so launch_dependent refuses the kernel.
// expect-error: umsync: a kernel launched with launch_dependent takes a tensor map as umsync::pending<tensor_map<...>> (its copies wait for the earlier grids: NVIDIA/cutlass #2760) or umsync::independent<tensor_map<...>>, never bare (pdl.hpp)
#include <umsync/launch.hpp>
#include <umsync/stream.hpp>
#include <umsync/sync/tensor_map.hpp>

struct compute {};
using map = umsync::tensor_map<float const, umsync::box<32, 8>>;

#if defined(UMSYNC_CF_CONTROL)
__global__ void load(umsync::pending<map> const __grid_constant__ source)
{
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  static_cast<void>(source.after(done));
}
#else
__global__ void load(map const __grid_constant__ source) { static_cast<void>(source); }
#endif

void run(umsync::stream<compute> const& s, map const& source)
{
  umsync::launch_dependent(s, {.grid = 1, .block = 64}, load, source);
}
