// Rule: a bulk copy moves a multiple of 16 bytes (PTX ISA, cp.async.bulk); a static count is
// checked at compile time.
// expect-error: umsync: a bulk copy moves a multiple of 16 bytes: Count * sizeof(T) must be a multiple of 16
#include <umsync/sync/bulk_copy.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned count = 4;
#else
constexpr unsigned count = 3;
#endif

__global__ void kernel(float const* in)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full;
  __shared__ umsync::shared_tile<float, 1024> tile;
  auto [bar, phase] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bar).load<count>(tile.first_use(), in).arrive();
  }
  bar.wait(phase);
}
