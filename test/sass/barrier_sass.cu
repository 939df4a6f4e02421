// Pairs of kernels for scripts/ci/sass-check.sh: raw_<name> is written with the raw intrinsic or
// PTX, umsync_<name> with umsync's typed barrier. The script compiles this file to a cubin and
// requires each pair to give identical SASS, with the BAR instruction's id and count as
// immediate operands. Not part of any test executable.
#include <umsync/sync/barrier_plan.hpp>
#include <umsync/sync/named_barrier.hpp>
#include <umsync/sync/warp.hpp>

namespace {
using plan = umsync::barrier_plan<256, umsync::reserved_barrier_ids<1, 7>,
                                  umsync::producer_consumer_spec<8, 0x0F, 0xF0>, umsync::barrier_spec<9, 0xFF>>;
}  // namespace

// Each kernel writes shared memory, crosses the barrier and reads a neighbour's element, so the
// barrier has work on both sides to be placed between.
#define UMSYNC_SASS_PAIR(name, raw_barrier, typed_barrier)          \
  extern "C" __global__ void raw_##name(int const* in, int* out)    \
  {                                                                 \
    __shared__ int tile[256];                                       \
    tile[threadIdx.x] = in[threadIdx.x];                            \
    raw_barrier;                                                    \
    out[threadIdx.x] = tile[(threadIdx.x + 32) % 128];              \
  }                                                                 \
  extern "C" __global__ void umsync_##name(int const* in, int* out) \
  {                                                                 \
    __shared__ int tile[256];                                       \
    tile[threadIdx.x] = in[threadIdx.x];                            \
    typed_barrier;                                                  \
    out[threadIdx.x] = tile[(threadIdx.x + 32) % 128];              \
  }

// clang-format off
UMSYNC_SASS_PAIR(sync, __barrier_sync_count(3, 128), (umsync::named_barrier<3, 0x0F>{}.sync()))
UMSYNC_SASS_PAIR(sync_aligned, asm volatile("bar.sync 3, 128;" ::: "memory"),
                 (umsync::named_barrier<3, 0x0F, 128>{}.sync_aligned()))
UMSYNC_SASS_PAIR(arrive, asm volatile("barrier.arrive 5, 256;" ::: "memory"),
                 (umsync::producer_consumer_barrier<5, 0x0F, 0xF0>{}.producer_arrive()))
UMSYNC_SASS_PAIR(arrive_aligned, asm volatile("bar.arrive 5, 256;" ::: "memory"),
                 (umsync::producer_consumer_barrier<5, 0x0F, 0xF0>{}.producer_arrive_aligned()))
UMSYNC_SASS_PAIR(plan_wait, __barrier_sync_count(8, 256), (plan::barrier<0>().consumer_wait()))
UMSYNC_SASS_PAIR(plan_sync, __barrier_sync_count(9, 256), (plan::barrier<1>().sync()))
UMSYNC_SASS_PAIR(full_warp_mask, __barrier_sync_count(15, 1024), (umsync::named_barrier<15, 0xFFFFFFFF>{}.sync()))
UMSYNC_SASS_PAIR(syncwarp, __syncwarp(0x0000FFFF), (umsync::syncwarp<umsync::lanes<0, 16>>()))
// clang-format on
