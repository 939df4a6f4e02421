// umsync/sync/detail/copy_rules.hpp: the rules every bulk copy states, worded once: which tile
// states a copy into (fill) or out of (store) shared memory takes, which layouts a one-dimensional
// and a tensor copy move, and the UMSYNC_DEBUG reports of bulk_fill.hpp and bulk_store.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/tensor_map.hpp>
#include <umsync/sync/transaction_barrier.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// The largest expected transaction count one phase can hold (PTX ISA, mbarrier: tx-count is
/// in the range -(2^20 - 1) .. 2^20 - 1).
inline constexpr std::size_t max_transaction_bytes = (std::size_t(1) << 20U) - 1U;

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: a bulk copy's size or global address breaks the 16-byte rule.
__device__ inline void check_bulk_copy(void const* global, std::size_t bytes, char const* what) noexcept
{
  bool const misaligned = (reinterpret_cast<std::uintptr_t>(global) % 16U) != 0U;
  if (!misaligned && bytes % 16U == 0U && bytes <= max_transaction_bytes) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: %s of %llu bytes at global %p in block (%u,%u,%u) thread (%u,%u,%u): a bulk copy needs a "
                "16-byte-aligned address and a size that is a multiple of 16 (at most %llu bytes a phase)\n",
                what, static_cast<unsigned long long>(bytes), global, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
                threadIdx.y, threadIdx.z, static_cast<unsigned long long>(max_transaction_bytes));
  }
  cluster_trap(prints);
}

/// UMSYNC_DEBUG: a multicast whose cluster size is not the launched one, or that leaves out the
/// issuing block (each barrier of the mask expects one box from each block of the mask).
__device__ inline void check_multicast(unsigned cluster_blocks, unsigned mask) noexcept
{
  unsigned const launched = cluster_block_count();
  unsigned const rank = cuda::ptx::get_sreg_cluster_ctarank();
  bool const in_mask = ((mask >> rank) & 1U) != 0U;
  if (launched == cluster_blocks && in_mask) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: a multicast to mask 0x%x of a cluster of %u blocks from block (%u,%u,%u) (rank %u) thread "
                "(%u,%u,%u): %s\n",
                mask, cluster_blocks, blockIdx.x, blockIdx.y, blockIdx.z, rank, threadIdx.x, threadIdx.y, threadIdx.z,
                launched != cluster_blocks ? "the kernel was launched with clusters of another size"
                                           : "the issuing block is not in the mask; each block of the mask loads "
                                             "one box into the stage, and each receiving barrier expects them all");
  }
  cluster_trap(prints);
}

__device__ inline void report_unfinished(char const* what, char const* rule) noexcept
{
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: %s in block (%u,%u,%u) thread (%u,%u,%u); %s\n", what, blockIdx.x, blockIdx.y, blockIdx.z,
                threadIdx.x, threadIdx.y, threadIdx.z, rule);
  }
  cluster_trap(prints);
}
#endif

/// The refill rule, worded once for every copy into shared memory: true when the copy may be issued.
template <tile_state State>
__host__ __device__ constexpr bool fill_accepts() noexcept
{
  static_assert(State != tile_state::async_visible,
                "umsync: a tile handed to a bulk store is refilled only after its store_token has been waited");
  static_assert(State == tile_state::empty || State == tile_state::async_visible,
                "umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after "
                "release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier");
  return State == tile_state::empty;
}

/// The store rule, worded once for every copy out of shared memory.
template <tile_state State>
__host__ __device__ constexpr bool store_accepts() noexcept
{
  static_assert(State != tile_state::generic_written,
                "umsync: shared memory written by generic code is handed to a bulk (TMA) store only after "
                "fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on "
                "the tile first");
  static_assert(State == tile_state::async_visible || State == tile_state::generic_written,
                "umsync: a bulk store takes a tile that publish_to_async() handed to the async proxy");
  return State == tile_state::async_visible;
}

/// A one-dimensional bulk copy moves a linear tile; a box goes through its tensor map.
template <class Layout>
__host__ __device__ constexpr bool linear_copy_accepts() noexcept
{
  static_assert(std::is_same_v<Layout, linear_layout>,
                "umsync: a one-dimensional bulk copy moves a linear shared_tile; a tensor map's box tile is copied "
                "through map.box_at(...)");
  return std::is_same_v<Layout, linear_layout>;
}

/// A tensor copy moves the map's box: the tile must be the map's shared_tile_type.
template <class T, class Layout, class Map>
__host__ __device__ constexpr bool tensor_copy_accepts() noexcept
{
  static_assert(std::is_same_v<T, typename Map::element_type>,
                "umsync: a tensor copy's tile holds the map's element type (tensor_map<...>::shared_tile_type)");
  if constexpr (!is_box_layout<Layout>) {
    static_assert(
        dependent_false<Layout>,
        "umsync: a tensor copy moves a box: its tile is the map's shared_tile_type, not a linear shared_tile");
    return false;
  } else {
    static_assert(std::is_same_v<typename Layout::box_type, typename Map::box_type>,
                  "umsync: a tensor copy's tile has the map's box shape (tensor_map<...>::shared_tile_type)");
    static_assert(Layout::swizzle == Map::swizzle,
                  "umsync: a tensor copy's tile has the map's swizzle (tensor_map<...>::shared_tile_type)");
    return std::is_same_v<T, typename Map::element_type> && std::is_same_v<Layout, typename Map::layout>;
  }
}

}  // namespace detail

UMSYNC_NAMESPACE_END
