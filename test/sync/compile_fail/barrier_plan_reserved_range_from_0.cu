// Rule: a reserved_barrier_ids range lies within the named barriers' ids, 1..15, and First <= Last;
// id 0 is __syncthreads()'s and no barrier_plan can hand it out.
// expect-error: umsync: a reserved barrier id range must satisfy 1 <= First <= Last <= 15
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<256, umsync::reserved_barrier_ids<1, 7>, umsync::barrier_spec<8, 0xFF>>;
#else
using plan = umsync::barrier_plan<256, umsync::reserved_barrier_ids<0, 7>,  // the library's eight barriers
                                  umsync::barrier_spec<8, 0xFF>>;
#endif

__global__ void kernel() { plan::barrier<0>().sync(); }
