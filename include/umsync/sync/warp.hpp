// umsync/sync/warp.hpp: lane masks fixed at compile time and warp tiles of 1..32 lanes.
//
//   umsync::syncwarp<umsync::lanes<0, 16>>();        // __syncwarp(0x0000FFFF); a 0 mask does not compile
//   umsync::warp_tile<8> const tile;                  // four tiles of 8 lanes per warp
//   int const left = tile.shfl(value, 0);             // from rank 0 of the caller's tile
//
// __syncwarp(0) is undefined behaviour and a mask computed at run time is easy to get wrong,
// so the mask is a template argument and an empty one is a compile error.
#pragma once

#include <umsync/config.hpp>

#include <cstdint>
#include <cstdio>

UMSYNC_NAMESPACE_BEGIN

/// Lanes of a warp, one bit per lane.
using lane_mask_t = std::uint32_t;

inline constexpr unsigned warp_size = 32;
inline constexpr lane_mask_t full_warp = 0xFFFFFFFFU;

namespace detail {
template <unsigned First, unsigned Count>
struct lane_range {
  static_assert(Count >= 1 && First < warp_size && First + Count <= warp_size,
                "umsync: a lane range must lie within lanes 0..31 and hold at least one lane");
  static constexpr lane_mask_t value = (Count == warp_size ? full_warp : ((1U << Count) - 1U)) << First;
};

__device__ inline unsigned lane_id() noexcept
{
  unsigned lane = 0;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}
}  // namespace detail

/// The mask of lanes First..First+Count-1.
template <unsigned First, unsigned Count>
inline constexpr lane_mask_t lanes = detail::lane_range<First, Count>::value;

/// __syncwarp(Mask) with the mask checked at compile time. Every lane in Mask must call it
/// (UMSYNC_DEBUG builds trap when a lane outside the mask does).
template <lane_mask_t Mask>
__device__ void syncwarp() noexcept
{
  static_assert(Mask != 0, "umsync: a warp lane mask must name at least one lane; __syncwarp(0) is undefined");
#if defined(UMSYNC_DEBUG)
  if (((Mask >> detail::lane_id()) & 1U) == 0) {
    std::printf("umsync: syncwarp<0x%08x> called by lane %u, which is not in the mask (block (%u,%u,%u), thread "
                "(%u,%u,%u))\n",
                Mask, detail::lane_id(), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
    __trap();
  }
#endif
  __syncwarp(Mask);
}

/// The warp cut into 32 / Lanes tiles of Lanes consecutive lanes. Each lane belongs to the tile
/// index() and has the position rank() in it; the tile's operations involve the caller's tile
/// only, so all of its lanes must take part.
template <unsigned Lanes>
class warp_tile {
  static_assert(Lanes >= 1 && Lanes <= warp_size, "umsync: a warp tile has 1..32 lanes");
  static_assert(Lanes == 0 || Lanes > warp_size || warp_size % Lanes == 0,
                "umsync: a warp tile's lane count must divide 32 (1, 2, 4, 8, 16 or 32)");

 public:
  static constexpr unsigned size = Lanes;
  static constexpr unsigned tiles_per_warp = warp_size / Lanes;
  /// The lanes of tile 0; tile t's are this shifted left by t * Lanes.
  static constexpr lane_mask_t first_tile_mask = Lanes == warp_size ? full_warp : (1U << Lanes) - 1U;

  /// The caller's position in its tile, 0..Lanes-1.
  __device__ static unsigned rank() noexcept { return detail::lane_id() % Lanes; }
  /// Which tile of the warp the caller is in, 0..tiles_per_warp-1.
  __device__ static unsigned index() noexcept { return detail::lane_id() / Lanes; }
  /// The caller's tile as a lane mask.
  __device__ static lane_mask_t mask() noexcept { return first_tile_mask << (index() * Lanes); }

  __device__ void sync() const noexcept { __syncwarp(mask()); }

  /// `value` from the lane of rank `source_rank` in the caller's tile.
  template <class T>
  __device__ T shfl(T value, unsigned source_rank) const noexcept
  {
    return __shfl_sync(mask(), value, static_cast<int>(source_rank), static_cast<int>(Lanes));
  }

  /// One bit per rank of the caller's tile (bit r: rank r's predicate).
  __device__ lane_mask_t ballot(bool predicate) const noexcept
  {
    return (__ballot_sync(mask(), predicate) >> (index() * Lanes)) & first_tile_mask;
  }

  __device__ bool all(bool predicate) const noexcept { return __all_sync(mask(), predicate) != 0; }
  __device__ bool any(bool predicate) const noexcept { return __any_sync(mask(), predicate) != 0; }
};

UMSYNC_NAMESPACE_END
