// Rule: a tile handed to a bulk store is written again only after its store_token has been
// waited (cp.async.bulk.wait_group.read): new stores to it could reach the global copy.
// expect-error: umsync: a tile handed to a bulk store is written again only after its store_token has been waited
#include <umsync/sync/bulk_copy.hpp>

__global__ void kernel(float const* in, float* out, unsigned rows)
{
  __shared__ umsync::shared_tile<float, 256> tile;
  auto row = tile.first_use().write();
  for (unsigned r = 0; r < rows; ++r) {
    row[threadIdx.x] = in[r * 256 + threadIdx.x] * 2.0F;
    auto visible = std::move(row).publish_to_async();
    auto token = umsync::bulk_store(out + r * 256, std::move(visible), threadIdx.x == 0);
#if defined(UMSYNC_CF_CONTROL)
    row = std::move(token).wait().write();
#else
    row = std::move(visible).write();  // the next row goes into the same tile
    static_cast<void>(std::move(token).wait());
#endif
  }
}
