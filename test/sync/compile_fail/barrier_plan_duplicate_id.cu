// Rule: the barriers of one kernel's plan have distinct ids; two barriers on one id would
// count each other's arrivals.
// expect-error: umsync: a barrier plan lists the same barrier id twice
#include <umsync/sync/barrier_plan.hpp>

#if defined(UMSYNC_CF_CONTROL)
using plan = umsync::barrier_plan<256, umsync::producer_consumer_spec<8, 0x0F, 0xF0>,
                                  umsync::producer_consumer_spec<9, 0xF0, 0x0F>>;
#else
using plan = umsync::barrier_plan<256, umsync::producer_consumer_spec<8, 0x0F, 0xF0>,
                                  umsync::producer_consumer_spec<8, 0xF0, 0x0F>>;
#endif

__global__ void kernel() { plan::barrier<0>().consumer_wait(); }
