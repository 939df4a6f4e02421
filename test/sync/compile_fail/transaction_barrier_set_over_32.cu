// Rule: a transaction barrier set holds 1 to 32 barriers: its phases are one parity bit each in
// a 32-bit word, so a run-time index selects its bit.
// expect-error: umsync: a transaction barrier set holds 1 to 32 barriers
#include <umsync/sync/bulk_copy.hpp>

#if defined(UMSYNC_CF_CONTROL)
constexpr unsigned stages = 32;
#else
constexpr unsigned stages = 48;  // one barrier per tile of the row
#endif

__global__ void kernel(float const* in, float* out)
{
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[stages];
  __shared__ umsync::shared_tile<float, 32> tiles[stages];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  if (threadIdx.x < stages) {
    umsync::bulk_fill(bars[threadIdx.x]).load(tiles[threadIdx.x].first_use(), in + threadIdx.x * 32).arrive();
  }
  for (unsigned s = 0; s < stages; ++s) {
    auto data = bars.wait(s, phases, tiles[s]).read();
    if (threadIdx.x < 32) {
      out[s * 32 + threadIdx.x] = data[threadIdx.x];
    }
  }
}
