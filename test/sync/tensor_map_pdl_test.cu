// GPU tests of sync/tensor_map.hpp with programmatic dependent launch (pdl.hpp, launch.hpp): a
// dependent kernel whose tensor map is pending<tensor_map<...>> copies boxes of what its primary
// wrote late only after the wait, and reads exactly that; the same copies issued through a bare
// map before the wait (raw CUDA, launched with the PDL attribute: NVIDIA/cutlass #2760) read
// stale data. The race is provoked as in pdl_test.cu: the primary lets its dependent start at
// once, then writes about 20 us later. The raw count is reported, not asserted.
#include "support/device_trap.hpp"
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/fill.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/pdl.hpp>
#include <umsync/stream.hpp>
#include <umsync/sync/bulk_copy.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

struct compute {};
constexpr unsigned width = 256;
constexpr unsigned height = 528;
constexpr std::size_t n = std::size_t{width} * height;
constexpr std::uint64_t late_ns = 20'000;
constexpr int pairs = 50;
using map = umsync::tensor_map<std::uint32_t const, umsync::box<32, 8>>;
constexpr unsigned boxes_across = width / 32;
constexpr unsigned blocks = boxes_across * (height / 8);

__host__ __device__ std::uint32_t expected(std::size_t i, std::uint32_t seed)
{
  return static_cast<std::uint32_t>(i) * 2654435761U ^ seed;
}

/// The primary: lets its dependent start at once, then writes `out` late.
__global__ void late_writer(std::uint32_t* out, std::uint32_t seed, std::uint64_t delay_ns)
{
  umsync::trigger_dependent_launch();
  if (threadIdx.x == 0) {
    umsync_test::spin_for_ns(delay_ns);
  }
  __syncthreads();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = expected(i, seed);
  }
}

/// Block b copies box b (32 x 8) of `source` into `out` through shared memory.
__device__ void copy_box(map const& source, std::uint32_t* out)
{
  __shared__ map::shared_tile_type tile;
  __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
  auto [bars, phases] = umsync::init_barriers(full, 1).publish();
  int const x = int(blockIdx.x % boxes_across) * 32;
  int const y = int(blockIdx.x / boxes_across) * 8;
  if (threadIdx.x == 0) {
    umsync::bulk_fill(bars[0]).load(tile.first_use(), source.box_at(x, y)).arrive();
  }
  auto view = bars.wait(0, phases, tile).read();
  for (unsigned i = threadIdx.x; i < map::shared_tile_type::size; i += blockDim.x) {
    out[std::size_t(y + int(i / 32)) * width + std::size_t(x) + i % 32] = view[i];
  }
}

/// The typed dependent: the map opens after the wait.
__global__ void copy_after_wait(umsync::pending<map> const __grid_constant__ source, umsync::pending<std::uint32_t> out)
{
  if (threadIdx.x == 0) {
    source.prefetch();  // the map itself is the kernel's own: allowed before the wait
  }
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  copy_box(source.after(done), out.after(done));
}

/// The bug the types exclude: tensor copies through a map over the primary's output, no wait.
__global__ void copy_without_wait(map const __grid_constant__ source, std::uint32_t* out) { copy_box(source, out); }

void launch_raw_dependent(cudaStream_t stream, map const& source, std::uint32_t* out)
{
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = blocks;
  config.blockDim = 128;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  UMSYNC_CUDA_CHECK(cudaLaunchKernelEx(&config, copy_without_wait, source, out));
}

}  // namespace

TEST_CASE("a dependent kernel's tensor copies read what its primary wrote late only through a pending map")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("tensor copies and programmatic dependent launch need compute capability 9.0 or newer");
    return;
  }
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::stream<compute> const s;
  umsync::stream_buffer<std::uint32_t, compute> produced(n, s);
  umsync::stream_buffer<std::uint32_t, compute> copied(n, s);
  auto const source = map::encode(produced.data(), {width, height});
  std::vector<std::uint32_t> host(n);
  int stale_pairs[2] = {0, 0};
  std::size_t stale_elements[2] = {0, 0};
  for (int pair = 0; pair < 2 * pairs; ++pair) {
    bool const use_types = pair % 2 == 0;
    auto const seed = static_cast<std::uint32_t>(rng());
    umsync::memset_bytes(s, produced, 0xA5);
    umsync::memset_bytes(s, copied, 0x5A);
    umsync::launch(s, {.grid = 132, .block = 256}, late_writer, produced, seed, late_ns);
    if (use_types) {
      umsync::launch_dependent(s, {.grid = blocks, .block = 128}, copy_after_wait, source, copied);
    } else {
      launch_raw_dependent(s.view().get(), source, copied.data());
    }
    umsync::copy_sync_pageable(host, copied, s);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += host[i] != expected(i, seed) ? 1U : 0U;
    }
    stale_pairs[use_types ? 0 : 1] += wrong != 0 ? 1 : 0;
    stale_elements[use_types ? 0 : 1] += wrong;
  }
  MESSAGE("raw dependent, tensor copies without the wait: " << stale_pairs[1] << " of " << pairs
                                                            << " pairs read stale data (" << stale_elements[1] << " of "
                                                            << pairs * n << " elements)");
  MESSAGE("typed dependent (pending tensor map): " << stale_pairs[0] << " of " << pairs << " pairs stale");
  CHECK(stale_pairs[0] == 0);
}
