// Rule: a tile handed to a bulk store comes back through its store_token, not release_stage().
// expect-error: umsync: release_stage() is for tiles generic code read or wrote; an async_visible tile comes back through its store_token
#include <umsync/sync/bulk_copy.hpp>

#include <cstdint>

__global__ void kernel()
{
  __shared__ umsync::shared_tile<float, 256> a;
  __shared__ umsync::shared_tile<float, 256> b;
  auto a_view = a.first_use().write();
  auto b_view = b.first_use().write();
  a_view[threadIdx.x] = 1.0F;
  b_view[threadIdx.x] = 2.0F;
#if defined(UMSYNC_CF_CONTROL)
  auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_view), std::move(b_view));
#else
  auto [a_empty, b_empty] = umsync::release_stage(umsync::whole_block{}, std::move(a_view),
                                                  std::move(b_view).publish_to_async());
#endif
}
