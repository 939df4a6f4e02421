// umsync/sync/bulk_copy.hpp: one-dimensional bulk copies (cp.async.bulk, sm_90) between global
// and shared memory, typed so that a transaction barrier expects exactly the bytes its copies
// deliver and a store's shared source is reused only after the store has read it.
//
//   // global -> shared: the fill adds up the copies' bytes and arrives with that expect_tx
//   if (threadIdx.x == 0) {
//     umsync::bulk_fill(bar).load(a.first_use(), src_a).load(b.first_use(), src_b).arrive();
//   }
//   auto tile_a = bar.wait(phase, a).write();                 // transaction_barrier.hpp
//
//   // shared -> global: commit_group on issue, wait_group.read before the tile is given back
//   auto visible = std::move(tile_a).publish_to_async();     // proxy.hpp
//   auto token = umsync::bulk_store(dst, std::move(visible), threadIdx.x == 0);
//   auto writable = std::move(token).wait();                  // wait_group.read 0, then __syncthreads()
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

/// The refill rule, worded once for every state a fill refuses.
template <tile_state State>
inline constexpr bool fill_accepts = State == tile_state::empty;

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
class bulk_fill {
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
  template <class T, std::size_t N, tile_state State>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State>&& destination, T const* source) && noexcept
  {
    return std::move(*this).template load<N>(std::move(destination), source);
  }

  /// Copies the first Count elements of the tile from `source`; Count is checked at compile time.
  template <std::size_t Count, class T, std::size_t N, tile_state State>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State>&& destination, T const* source) && noexcept
  {
    static_assert(Count <= N, "umsync: a bulk copy of more elements than the tile holds");
    static_assert(Count * sizeof(T) % 16 == 0,
                  "umsync: a bulk copy moves a multiple of 16 bytes: Count * sizeof(T) must be a multiple of 16");
    static_assert(StaticBytes + Count * sizeof(T) <= detail::max_transaction_bytes,
                  "umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)");
    constexpr std::size_t bytes = Count * sizeof(T);
    if constexpr (check_state<State>()) {
      issue(detail::tile_access::data(destination), source, bytes);
    }
    bulk_fill<Scope, StaticBytes + bytes, HasDynamic> next(barrier_, dynamic_bytes_);
#if defined(UMSYNC_DEBUG)
    finished_ = true;
#endif
    return next;
  }

  /// Copies the first `count` elements (a run-time count; debug builds check the 16-byte rule).
  template <class T, std::size_t N, tile_state State>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State>&& destination, T const* source,
                                                    std::size_t count) && noexcept
  {
    std::size_t const bytes = count * sizeof(T);
#if defined(UMSYNC_DEBUG)
    if (count > N) {
      detail::report_unfinished("bulk_fill::load of more elements than the tile holds",
                                "a bulk copy stays inside its tile");
    }
#endif
    if constexpr (check_state<State>()) {
      issue(detail::tile_access::data(destination), source, bytes);
    }
    bulk_fill<Scope, StaticBytes, true> next(barrier_, dynamic_bytes_ + static_cast<std::uint32_t>(bytes));
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
  template <tile_state State>
  __host__ __device__ static constexpr bool check_state() noexcept
  {
    static_assert(State != tile_state::async_visible,
                  "umsync: a tile handed to a bulk store is refilled only after its store_token has been waited");
    static_assert(State == tile_state::empty || State == tile_state::async_visible,
                  "umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after "
                  "release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier");
    return detail::fill_accepts<State>;
  }

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
template <barrier_scope Scope, class T, std::size_t N, tile_state State>
__device__ void bulk_load(tile<T, N, State>&& destination, T const* source, std::size_t count,
                          transaction_barrier<Scope> const& barrier) noexcept
{
  static_assert(State != tile_state::async_visible,
                "umsync: a tile handed to a bulk store is refilled only after its store_token has been waited");
  static_assert(State == tile_state::empty || State == tile_state::async_visible,
                "umsync: a stage that generic code read or wrote is refilled by a bulk (TMA) copy only after "
                "release(): fence.proxy.async.shared::cta in every thread that accessed it, then a barrier");
  std::size_t const bytes = count * sizeof(T);
#if defined(UMSYNC_DEBUG)
  detail::check_bulk_copy(source, bytes, "bulk_load");
  detail::note_issued(barrier.storage(), static_cast<std::uint32_t>(bytes));
#endif
  if constexpr (State == tile_state::empty) {
    cuda::ptx::cp_async_bulk(cuda::ptx::space_shared, cuda::ptx::space_global, detail::tile_access::data(destination),
                             source, static_cast<std::uint32_t>(bytes), &barrier.storage()->word);
  }
}

/// The pending shared -> global store of a tile. The tile comes back (empty, writable) only
/// through wait(), after the store has read it (cp.async.bulk.wait_group.read 0): writing or
/// refilling the shared source earlier would change what the store writes.
template <class T, std::size_t N>
class store_token {
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
  __device__ tile<T, N, tile_state::empty> wait(Sync const& sync = {}) && noexcept
  {
#if defined(UMSYNC_DEBUG)
    waited_ = true;
#endif
    if (issuer_) {
      cuda::ptx::cp_async_bulk_wait_group_read(cuda::ptx::n32_t<0>{});
    }
    sync.sync();
    return detail::tile_access::make<T, N, tile_state::empty>(data_);
  }

  /// The one real constructor (bulk_store()).
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
template <class T, std::size_t N, tile_state State>
[[nodiscard("umsync: a bulk store's token must be waited (wait()) before its tile is written or refilled, and before "
            "the block exits")]] __device__ store_token<T, N>
bulk_store(T* destination, tile<T, N, State>&& source, bool issuer) noexcept
{
  static_assert(State != tile_state::generic_written,
                "umsync: shared memory written by generic code is handed to a bulk (TMA) store only after "
                "fence.proxy.async.shared::cta in every writing thread and a barrier: call publish_to_async() on "
                "the tile first");
  static_assert(State == tile_state::async_visible || State == tile_state::generic_written,
                "umsync: a bulk store takes a tile that publish_to_async() handed to the async proxy");
  T* const data = detail::tile_access::data(source);
  if (issuer) {
#if defined(UMSYNC_DEBUG)
    detail::check_bulk_copy(destination, N * sizeof(T), "bulk_store");
#endif
    cuda::ptx::cp_async_bulk(cuda::ptx::space_global, cuda::ptx::space_shared, destination, data,
                             static_cast<std::uint32_t>(N * sizeof(T)));
    cuda::ptx::cp_async_bulk_commit_group();
  }
  return store_token<T, N>(detail::transaction_access::key(), data, issuer);
}

/// Waits until every bulk store this thread issued has written global memory
/// (cp.async.bulk.wait_group 0), for a thread that reads the results in the same kernel.
__device__ inline void bulk_store_wait_all() noexcept { cuda::ptx::cp_async_bulk_wait_group(cuda::ptx::n32_t<0>{}); }

UMSYNC_NAMESPACE_END
