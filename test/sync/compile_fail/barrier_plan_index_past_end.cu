// Rule: plan::barrier<I>() takes the I-th barrier spec of the plan, counted from 0 (reserved
// ranges take no position); an index past the last spec names no barrier.
// expect-error: umsync: barrier index past the end of the barrier plan
#include <umsync/sync/barrier_plan.hpp>

using plan =
    umsync::barrier_plan<256, umsync::reserved_barrier_ids<1, 7>, umsync::producer_consumer_spec<8, 0x0F, 0xF0>,
                         umsync::producer_consumer_spec<9, 0xF0, 0x0F>>;

__global__ void kernel()
{
  constexpr auto full = plan::barrier<0>();
#if defined(UMSYNC_CF_CONTROL)
  constexpr auto empty = plan::barrier<1>();
#else
  constexpr auto empty = plan::barrier<2>();  // the plan's second entry after the reserved range
#endif
  if (threadIdx.x < 128) {
    full.producer_arrive();
    empty.consumer_wait();
  } else {
    full.consumer_wait();
    empty.producer_arrive();
  }
}
