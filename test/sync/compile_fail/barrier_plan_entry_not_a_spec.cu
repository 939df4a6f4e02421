// Rule: a barrier plan lists specs (barrier_spec, producer_consumer_spec) and reserved_barrier_ids
// ranges; a barrier type itself is no spec, and the plan would not know its warps.
// expect-error: umsync: a barrier plan lists only reserved_barrier_ids, barrier_spec and producer_consumer_spec
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<256, umsync::producer_consumer_spec<8, 0x0F, 0xF0>, umsync::barrier_spec<9, 0xFF>>;
#else
using plan = umsync::barrier_plan<256, umsync::producer_consumer_spec<8, 0x0F, 0xF0>, umsync::named_barrier<9, 0xFF>>;
#endif

__global__ void kernel()
{
  constexpr auto full = plan::barrier<0>();
  if (threadIdx.x < 128) {
    full.producer_arrive();
  } else {
    full.consumer_wait();
  }
}
