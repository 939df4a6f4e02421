// umsync/sync/bulk_copy.hpp: bulk copies between global and shared memory (sm_90), one-dimensional
// (cp.async.bulk) or boxes of a tensor map (cp.async.bulk.tensor, tensor_map.hpp), typed so that
// a transaction barrier expects exactly the bytes its copies deliver and a store's shared source
// is reused only after the store has read it.
//
//   // global -> shared: the fill adds up the copies' bytes and arrives with that expect_tx
//   if (threadIdx.x == 0) {
//     umsync::bulk_fill(bar).load(a.first_use(), src_a).load(b.first_use(), src_b).arrive();
//   }
//   auto tile_a = bar.wait(phase, a).write();                 // transaction_barrier.hpp
//
//   // a stage of two boxes (a GEMM's A and B tiles): one arrive expects both maps' box bytes
//   umsync::bulk_fill(bar).load(a_tile.first_use(), a_map.box_at(k, m))
//                         .load(b_tile.first_use(), b_map.box_at(k, n)).arrive();
//
//   // shared -> global: commit_group on issue, wait_group.read before the tile is given back
//   auto visible = std::move(tile_a).publish_to_async();     // proxy.hpp
//   auto token = umsync::bulk_store(dst, std::move(visible), threadIdx.x == 0);
//   auto writable = std::move(token).wait();                  // wait_group.read 0, then __syncthreads()
//   auto token2 = umsync::tensor_store(d_map.box_at(n, m), std::move(visible_box), threadIdx.x == 0);
//
// Sizes known at compile time (whole tiles, load<Count>) make the expect_tx count an immediate
// and are checked at compile time (multiples of 16 bytes: PTX ISA, cp.async.bulk); a count given
// at run time is added at run time, and UMSYNC_DEBUG builds trap on a size or an address that
// breaks the rule. The fill is nodiscard and must end with arrive(); the token must be waited:
// UMSYNC_DEBUG builds trap where either is dropped unfinished.
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

/// A run of global -> shared bulk copies completing on one transaction barrier, issued by one
/// thread. Each load() returns the fill with the copy's bytes added (StaticBytes at compile
/// time; run-time counts in a member); arrive() issues mbarrier.arrive.expect_tx with the total,
/// so the bytes the barrier expects are the bytes the copies deliver. The copies may complete
/// before the arrive: the phase cannot complete while the arrival is pending (PTX ISA, mbarrier
/// tx-count).
#define UMSYNC_DETAIL_FILL_NODISCARD \
  [[nodiscard("umsync: a bulk fill must end with arrive(), which tells the barrier the bytes its copies deliver")]]

template <barrier_scope Scope, std::size_t StaticBytes = 0, bool HasDynamic = false>
class UMSYNC_DETAIL_FILL_NODISCARD bulk_fill {
 public:
  __device__ explicit bulk_fill(transaction_barrier<Scope> const& barrier) noexcept : barrier_(barrier)
  {
    static_assert(StaticBytes == 0 && !HasDynamic, "umsync: a bulk fill starts from a transaction barrier");
  }
  bulk_fill(bulk_fill const&) = delete;
  bulk_fill& operator=(bulk_fill const&) = delete;
  __device__ bulk_fill(bulk_fill&& other) noexcept : barrier_(other.barrier_), dynamic_bytes_(other.dynamic_bytes_)
  {
#if defined(UMSYNC_DEBUG)
    other.finished_ = true;
#endif
  }
#if defined(UMSYNC_DEBUG)
  __device__ ~bulk_fill()
  {
    if (!finished_) {
      detail::report_unfinished("bulk_fill destroyed without arrive()",
                                "the barrier would never be told the bytes its copies deliver");
    }
  }
#endif

  /// Copies the whole tile from `source` (N elements).
  template <class T, std::size_t N, tile_state State, class Layout>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State, Layout>&& destination,
                                                    T const* source) && noexcept
  {
    return std::move(*this).template load<N>(std::move(destination), source);
  }

  /// Copies the first Count elements of the tile from `source`; Count is checked at compile time.
  template <std::size_t Count, class T, std::size_t N, tile_state State, class Layout>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State, Layout>&& destination,
                                                    T const* source) && noexcept
  {
    static_assert(Count <= N, "umsync: a bulk copy of more elements than the tile holds");
    static_assert(Count * sizeof(T) % 16 == 0,
                  "umsync: a bulk copy moves a multiple of 16 bytes: Count * sizeof(T) must be a multiple of 16");
    static_assert(StaticBytes + Count * sizeof(T) <= detail::max_transaction_bytes,
                  "umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)");
    constexpr std::size_t bytes = Count * sizeof(T);
    if constexpr (detail::linear_copy_accepts<Layout>() && detail::fill_accepts<State>()) {
      issue(detail::tile_access::data(destination), source, bytes);
    }
    bulk_fill<Scope, StaticBytes + bytes, HasDynamic> next(barrier_, dynamic_bytes_);
#if defined(UMSYNC_DEBUG)
    finished_ = true;
#endif
    return next;
  }

  /// Copies the first `count` elements (a run-time count; debug builds check the 16-byte rule).
  template <class T, std::size_t N, tile_state State, class Layout>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State, Layout>&& destination, T const* source,
                                                    std::size_t count) && noexcept
  {
    std::size_t const bytes = count * sizeof(T);
#if defined(UMSYNC_DEBUG)
    if (count > N) {
      detail::report_unfinished("bulk_fill::load of more elements than the tile holds",
                                "a bulk copy stays inside its tile");
    }
#endif
    if constexpr (detail::linear_copy_accepts<Layout>() && detail::fill_accepts<State>()) {
      issue(detail::tile_access::data(destination), source, bytes);
    }
    bulk_fill<Scope, StaticBytes, true> next(barrier_, dynamic_bytes_ + static_cast<std::uint32_t>(bytes));
#if defined(UMSYNC_DEBUG)
    finished_ = true;
#endif
    return next;
  }

  /// Copies the box `source` names into the tile (cp.async.bulk.tensor): the map's box bytes join
  /// the fill's total at compile time, so a stage of several boxes (a GEMM's A and B) is one
  /// arrive with their sum.
  template <class T, std::size_t N, tile_state State, class Layout, class Map>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State, Layout>&& destination,
                                                    tensor_box<Map> const& source) && noexcept
  {
    static_assert(StaticBytes + Map::box_bytes <= detail::max_transaction_bytes,
                  "umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)");
    if constexpr (detail::tensor_copy_accepts<T, Layout, Map>() && detail::fill_accepts<State>()) {
#if defined(UMSYNC_DEBUG)
      detail::note_issued(barrier_.storage(), static_cast<std::uint32_t>(Map::box_bytes));
#endif
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      detail::tile_access::data(destination), source.map().address(),
                                      source.coordinates(), &barrier_.storage()->word);
    }
    bulk_fill<Scope, StaticBytes + Map::box_bytes, HasDynamic> next(barrier_, dynamic_bytes_);
#if defined(UMSYNC_DEBUG)
    finished_ = true;
#endif
    return next;
  }

  /// Arrives with expect_tx of every byte the loads deliver (an immediate when all are static).
  __device__ void arrive() && noexcept
  {
    static_assert(StaticBytes > 0 || HasDynamic, "umsync: a bulk fill arrives after at least one load()");
#if defined(UMSYNC_DEBUG)
    finished_ = true;
    detail::check_bulk_copy(nullptr, total(), "bulk_fill::arrive");
#endif
    barrier_.arrive_expect_tx(total());
  }

  /// The bytes the loads so far deliver.
  __device__ std::uint32_t total() const noexcept
  {
    if constexpr (HasDynamic) {
      return static_cast<std::uint32_t>(StaticBytes) + dynamic_bytes_;
    } else {
      return static_cast<std::uint32_t>(StaticBytes);
    }
  }

  /// The one real constructor of a fill with bytes already issued (its own load() members).
  __device__ bulk_fill(transaction_barrier<Scope> const& barrier, std::uint32_t dynamic_bytes) noexcept
      : barrier_(barrier), dynamic_bytes_(dynamic_bytes)
  {}

 private:
  __device__ void issue(void* destination, void const* source, std::size_t bytes) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_bulk_copy(source, bytes, "bulk_fill::load");
    detail::note_issued(barrier_.storage(), static_cast<std::uint32_t>(bytes));
#endif
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, destination, source,
                             static_cast<std::uint32_t>(bytes), &barrier_.storage()->word);
  }

  template <barrier_scope, std::size_t, bool>
  friend class bulk_fill;
  transaction_barrier<Scope> barrier_;
  std::uint32_t dynamic_bytes_ = 0;
#if defined(UMSYNC_DEBUG)
  bool finished_ = false;
#endif
};

template <barrier_scope Scope>
bulk_fill(transaction_barrier<Scope> const&) -> bulk_fill<Scope, 0, false>;

#undef UMSYNC_DETAIL_FILL_NODISCARD

/// A global -> shared bulk copy issued apart from a bulk_fill: for copies whose bytes another
/// thread announces with arrive_expect_tx(). Debug builds add the bytes to the barrier's count
/// of issued bytes, which its timeout message compares with the bytes expected.
template <barrier_scope Scope, class T, std::size_t N, tile_state State, class Layout>
__device__ void bulk_load(tile<T, N, State, Layout>&& destination, T const* source, std::size_t count,
                          transaction_barrier<Scope> const& barrier) noexcept
{
  std::size_t const bytes = count * sizeof(T);
#if defined(UMSYNC_DEBUG)
  detail::check_bulk_copy(source, bytes, "bulk_load");
  detail::note_issued(barrier.storage(), static_cast<std::uint32_t>(bytes));
#endif
  if constexpr (detail::linear_copy_accepts<Layout>() && detail::fill_accepts<State>()) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, detail::tile_access::data(destination),
                             source, static_cast<std::uint32_t>(bytes), &barrier.storage()->word);
  }
}

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

/// Stores the tile to the box `destination` names (cp.async.bulk.tensor.global.shared::cta, then
/// commit_group) when `issuer` is true; the parts of a box past the tensor's edge are not
/// written. The same rules as bulk_store: the tile must be async_visible, and the token waited.
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
