// Rule: the block size a named barrier is checked against is one CUDA can launch, at most 1024
// threads.
// expect-error: umsync: a block has at most 1024 threads
#include <umsync/sync/named_barrier.hpp>

__global__ void kernel()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::named_barrier<1, 0x0F, 1024> const group;
#else
  umsync::named_barrier<1, 0x0F, 2048> const group;  // 64 warps
#endif
  if (threadIdx.x < 128) {
    group.sync();
  }
}
