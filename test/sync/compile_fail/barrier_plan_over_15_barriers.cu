// Rule: a barrier plan holds at most 15 barriers: a block has 16 hardware barriers and
// __syncthreads() takes id 0.
// expect-error: umsync: a kernel can use at most 15 named barriers (ids 1..15); the plan lists more
#include <umsync/sync/barrier_plan.hpp>

// A full and an empty barrier for each stage of a ring of tiles: warp 0 loads, warps 1..7 compute
// (one barrier a line, as the stages go).
// clang-format off
using plan = umsync::barrier_plan<256,
                                  umsync::producer_consumer_spec<1, 0x01, 0xFE>,  // stage 0: full, empty
                                  umsync::producer_consumer_spec<2, 0xFE, 0x01>,
                                  umsync::producer_consumer_spec<3, 0x01, 0xFE>,  // stage 1
                                  umsync::producer_consumer_spec<4, 0xFE, 0x01>,
                                  umsync::producer_consumer_spec<5, 0x01, 0xFE>,  // stage 2
                                  umsync::producer_consumer_spec<6, 0xFE, 0x01>,
                                  umsync::producer_consumer_spec<7, 0x01, 0xFE>,  // stage 3
                                  umsync::producer_consumer_spec<8, 0xFE, 0x01>,
                                  umsync::producer_consumer_spec<9, 0x01, 0xFE>,  // stage 4
                                  umsync::producer_consumer_spec<10, 0xFE, 0x01>,
                                  umsync::producer_consumer_spec<11, 0x01, 0xFE>,  // stage 5
                                  umsync::producer_consumer_spec<12, 0xFE, 0x01>,
#if !defined(UMSYNC_CF_CONTROL)
                                  umsync::producer_consumer_spec<15, 0x01, 0xFE>,  // stage 7
                                  umsync::producer_consumer_spec<16, 0xFE, 0x01>,
#endif
                                  umsync::producer_consumer_spec<13, 0x01, 0xFE>,  // stage 6
                                  umsync::producer_consumer_spec<14, 0xFE, 0x01>>;
// clang-format on

__global__ void kernel()
{
  constexpr auto tile_full = plan::barrier<0>();
  constexpr auto tile_empty = plan::barrier<1>();
  if (threadIdx.x < 32) {
    tile_full.producer_arrive();
    tile_empty.consumer_wait();
  } else {
    tile_full.consumer_wait();
    tile_empty.producer_arrive();
  }
}
