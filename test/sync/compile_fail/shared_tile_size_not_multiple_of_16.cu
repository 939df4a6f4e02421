// Rule: a tile that bulk copies move whole is a multiple of 16 bytes (PTX ISA, cp.async.bulk).
// expect-error: umsync: a bulk copy moves a multiple of 16 bytes: a shared_tile's size (N * sizeof(T)) must be a multiple of 16
#include <umsync/sync/proxy.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned elements = 8;
#else
constexpr unsigned elements = 6;
#endif

__global__ void kernel(unsigned short* out)
{
  __shared__ umsync::shared_tile<unsigned short, elements> tile;
  auto data = tile.first_use().write();
  data[0] = 1;
  out[0] = data[0];
}
