// Rule: a shared_tile holds at least one element (a tile of none is a size computed as zero,
// which no bulk copy can fill).
// expect-error: umsync: a shared_tile holds at least one element
#include <umsync/sync/proxy.hpp>

template <std::size_t Halo>
__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<float, 2 * Halo> halo;
  auto data = halo.first_use().write();
  if (threadIdx.x < 2 * Halo) {
    data[threadIdx.x] = static_cast<float>(threadIdx.x);
    out[threadIdx.x] = data[threadIdx.x];
  }
}

#if defined(UMSYNC_CF_CONTROL)
template __global__ void kernel<2>(float*);
#else
template __global__ void kernel<0>(float*);  // a stencil without halo
#endif
