// umsync/sync/bulk_store.hpp: shared -> global bulk copies (cp.async.bulk, and
// cp.async.bulk.tensor through a tensor map) whose shared source comes back only through a waited
// store_token. Usage: bulk_copy.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/sync/detail/copy_rules.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/tensor_map.hpp>
#include <umsync/sync/transaction_barrier.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>

UMSYNC_NAMESPACE_BEGIN

/// The pending shared -> global store of a tile. The tile comes back (empty, writable) only
/// through wait(), after the store has read it (cp.async.bulk.wait_group.read 0): writing or
/// refilling the shared source earlier would change what the store writes.
#define UMSYNC_DETAIL_STORE_NODISCARD                                                                             \
  [[nodiscard("umsync: a bulk store's token must be waited (wait()) before its tile is written or refilled, and " \
              "before the block exits")]]

template <class T, std::size_t N, class Layout = linear_layout>
class UMSYNC_DETAIL_STORE_NODISCARD store_token {
 public:
  store_token(store_token const&) = delete;
  store_token& operator=(store_token const&) = delete;
  __device__ store_token(store_token&& other) noexcept : data_(other.data_), issuer_(other.issuer_)
  {
#if defined(UMSYNC_DEBUG)
    other.waited_ = true;
#endif
  }
#if defined(UMSYNC_DEBUG)
  __device__ ~store_token()
  {
    if (!waited_) {
      detail::report_unfinished("store_token destroyed without wait()",
                                "the tile is reused, and the block exits, only after the store has read it");
    }
  }
#endif

  /// Every thread that holds the token calls it: the issuing thread waits until its stores have
  /// read their sources (all of them: wait_group.read 0), then `sync` hands the tile back.
  template <class Sync = whole_block>
  __device__ tile<T, N, tile_state::empty, Layout> wait(Sync const& sync = {}) && noexcept
  {
#if defined(UMSYNC_DEBUG)
    waited_ = true;
#endif
    if (issuer_) {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
    sync.sync();
    return detail::tile_access::make<T, N, tile_state::empty, Layout>(data_);
  }

  /// The one real constructor (bulk_store(), tensor_store()).
  __device__ store_token(detail::transaction_key, T* data, bool issuer) noexcept : data_(data), issuer_(issuer) {}

 private:
  T* data_;
  bool issuer_;
#if defined(UMSYNC_DEBUG)
  bool waited_ = false;
#endif
};

/// Stores the whole tile to `destination` (cp.async.bulk.global.shared::cta.bulk_group, then
/// commit_group) when `issuer` is true; every thread that handed the tile over calls it and
/// gets the token. The tile must be async_visible: written by generic code and fenced
/// (publish_to_async()), or loaded and handed over the same way.
template <class T, std::size_t N, tile_state State, class Layout>
UMSYNC_DETAIL_STORE_NODISCARD __device__ store_token<T, N, Layout> bulk_store(T* destination,
                                                                              tile<T, N, State, Layout>&& source,
                                                                              bool issuer) noexcept
{
  T* const data = detail::tile_access::data(source);
  if constexpr (detail::linear_copy_accepts<Layout>() && detail::store_accepts<State>()) {
    if (issuer) {
#if defined(UMSYNC_DEBUG)
      detail::check_bulk_copy(destination, N * sizeof(T), "bulk_store");
#endif
      cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, destination, data,
                               static_cast<std::uint32_t>(N * sizeof(T)));
      cuda::ptx::cp_async_bulk_commit_group();
    }
  }
  return store_token<T, N, Layout>(detail::transaction_access::key(), data, issuer);
}

namespace detail {
#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: a tensor store's box starts inside the tensor (an H100 raised an illegal
/// instruction for a store at (-16, -5); loads at negative coordinates fill zeros).
template <std::size_t Rank>
__device__ void check_store_coordinates(std::int32_t const (&coordinates)[Rank]) noexcept
{
  bool negative = false;
  for (std::size_t d = 0; d < Rank; ++d) {
    negative = negative || coordinates[d] < 0;
  }
  if (!negative) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: a tensor store at a negative coordinate (first %d) in block (%u,%u,%u) thread (%u,%u,%u); a "
                "stored box starts inside the tensor (it may end past its edge, which is not written)\n",
                int(coordinates[0]), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
  }
  cluster_trap(prints);
}
#endif
}  // namespace detail

/// Stores the tile to the box `destination` names (cp.async.bulk.tensor.global.shared::cta, then
/// commit_group) when `issuer` is true; the box starts inside the tensor (coordinates >= 0,
/// UMSYNC_DEBUG traps otherwise), and its parts past the tensor's edge are not written. The same rules as bulk_store: the tile must be async_visible, and the token waited.
template <class T, std::size_t N, tile_state State, class Layout, class Map>
UMSYNC_DETAIL_STORE_NODISCARD __device__ store_token<T, N, Layout> tensor_store(tensor_box<Map> const& destination,
                                                                                tile<T, N, State, Layout>&& source,
                                                                                bool issuer) noexcept
{
  static_assert(!Map::loads_only,
                "umsync: a tensor map of const elements only loads: a tensor store needs tensor_map<T, ...>");
  T* const data = detail::tile_access::data(source);
  if constexpr (!Map::loads_only && detail::tensor_copy_accepts<T, Layout, Map>() && detail::store_accepts<State>()) {
    if (issuer) {
#if defined(UMSYNC_DEBUG)
      detail::check_store_coordinates(destination.coordinates());
#endif
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_global, cuda::ptx::space_shared, destination.map().address(),
                                      destination.coordinates(), data);
      cuda::ptx::cp_async_bulk_commit_group();
    }
  }
  return store_token<T, N, Layout>(detail::transaction_access::key(), data, issuer);
}

#undef UMSYNC_DETAIL_STORE_NODISCARD

/// Waits until every bulk store this thread issued has written global memory
/// (cp.async.bulk.wait_group 0), for a thread that reads the results in the same kernel.
__device__ inline void bulk_store_wait_all() noexcept { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{}); }

UMSYNC_NAMESPACE_END
