// Rule: a signal orders one thread's writes before another thread's reads, which thread scope
// does not do; block_shared memory takes block scope or wider.
// expect-error: umsync: thread scope cannot order two threads
#include <umsync/sync/signal.hpp>

__global__ void kernel(unsigned* out)
{
  __shared__ std::uint64_t word;
  if (threadIdx.x == 0) {
    word = 0;
  }
  __syncthreads();
#if defined(UMSYNC_CF_CONTROL)
  umsync::counter<umsync::block_shared, cuda::thread_scope_block> const arrived{&word};
#else
  umsync::counter<umsync::block_shared, cuda::thread_scope_thread> const arrived{&word};
#endif
  arrived.add(1);
  if (threadIdx.x == 0) {
    arrived.wait_at_least(blockDim.x);
    out[blockIdx.x] = 1;
  }
}
