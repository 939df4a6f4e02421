// Rule: a tile view is moved into the step that changes its state, never copied: a copy could
// keep an old state past the change.
// expect-error: umsync: a tile view cannot be copied: its state changes as it is used; move it (std::move) into the next step
#include <umsync/sync/proxy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<float>(threadIdx.x);
#if defined(UMSYNC_CF_CONTROL)
  auto kept = std::move(data);
#else
  auto kept = data;
#endif
  out[threadIdx.x] = kept[threadIdx.x];
}
