// Rule: publish_to_async() hands over a tile that generic code wrote (write()) or a loaded one;
// stores through data() of an empty view are not writes the view knows of.
// expect-error: umsync: publish_to_async() hands over a tile that generic code wrote (write()) or a loaded one
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 256> tile;
#if defined(UMSYNC_CF_CONTROL)
  auto data = tile.first_use().write();
  data[threadIdx.x] = static_cast<float>(threadIdx.x);
#else
  auto data = tile.first_use();
  data.data()[threadIdx.x] = static_cast<float>(threadIdx.x);
#endif
  auto token = umsync::bulk_store(out, std::move(data).publish_to_async(), threadIdx.x == 0);
  static_cast<void>(std::move(token).wait());
}
