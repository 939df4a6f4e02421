// Rule: a shared_tile holds trivially copyable elements only: bulk copies move its bytes, and no
// copy constructor runs when they do.
// expect-error: umsync: a shared_tile holds trivially copyable elements only
#include <umsync/sync/proxy.hpp>

struct sample {
  float value;
  sample() = default;
#if !defined(UMSYNC_CF_CONTROL)
  __device__ sample(sample const& other) : value(other.value) {}  // written out, so not trivial
  sample& operator=(sample const&) = default;
#endif
};

__global__ void kernel(float* out)
{
  __shared__ umsync::shared_tile<sample, 256> tile;
  auto data = tile.first_use().write();
  data[threadIdx.x].value = static_cast<float>(threadIdx.x);
  out[threadIdx.x] = data[255 - threadIdx.x].value;
}
