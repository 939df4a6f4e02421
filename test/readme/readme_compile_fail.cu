// Fill-ins of the README blocks that must not compile (marked
// <!-- readme-test: expect-compile-error: umsync: ... --> in README.md). compile_fail.readme_blocks
// compiles this file once per such block N through readme_compile_fail_block_<N>.cu (written by
// test/scripts/readme_blocks.py): with UMSYNC_README_BLOCK_<N> defined the block is included and
// must fail with the README's text and no other error; without it (the control build) the
// fill-ins alone compile. Each function takes, as fill-ins, what its block names.
#include <umsync/umsync.hpp>

#include <cstddef>
#include <utility>

namespace {

struct producer {};  // fill-in: block 1's tags
struct consumer {};

// fill-in: the README's consumer kernel.
__global__ void consume(float const* in, float* out, std::size_t n)
{
  if (threadIdx.x < n) out[threadIdx.x] = 2.0F * in[threadIdx.x];
}

}  // namespace

// Block 3: `mid`, allocated on ps and bound to producer, launched on cs without an edge.
void readme_block_3(umsync::stream<consumer> const& cs, umsync::stream_buffer<float, producer>& mid, float* d_out,
                    std::size_t n)
{
#if defined(UMSYNC_README_BLOCK_3)
#  include "readme_block_3.hpp"
#endif
  static_cast<void>(std::make_pair(&cs, &mid));
  static_cast<void>(std::make_pair(d_out, n));
  static_cast<void>(&consume);
}
