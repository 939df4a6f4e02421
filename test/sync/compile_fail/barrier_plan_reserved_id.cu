// Rule: a plan's barriers stay out of the id ranges it reserves for a library (CUTLASS
// reserves 1..7 for its own named barriers).
// expect-error: umsync: a barrier plan uses an id inside a reserved range (reserved_barrier_ids)
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<256, umsync::reserved_barrier_ids<1, 7>, umsync::barrier_spec<8, 0xFF>>;
#else
using plan = umsync::barrier_plan<256, umsync::reserved_barrier_ids<1, 7>, umsync::barrier_spec<3, 0xFF>>;
#endif

__global__ void kernel() { plan::barrier<0>().sync(); }
