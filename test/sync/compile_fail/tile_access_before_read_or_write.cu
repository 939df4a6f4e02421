// Rule: generic code touches a tile's elements only through a view in state generic_read or
// generic_written, so the proxy handoffs know what happened to it.
// expect-error: umsync: a tile's elements are accessed only after read() or write(): an empty tile may be filled by a bulk copy at any time, and an async_visible one belongs to a bulk store
#include <umsync/sync/proxy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
#if defined(UMSYNC_CF_CONTROL)
  auto data = tile.first_use().write();
#else
  auto data = tile.first_use();
#endif
  out[threadIdx.x] = data[threadIdx.x];
}
