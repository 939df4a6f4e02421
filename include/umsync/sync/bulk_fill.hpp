// umsync/sync/bulk_fill.hpp: global -> shared bulk copies (cp.async.bulk, and cp.async.bulk.tensor
// through a tensor map) completing on one transaction barrier, whose arrive expects exactly the
// bytes the copies deliver. Usage: bulk_copy.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/sync/detail/copy_rules.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/tensor_map.hpp>
#include <umsync/sync/transaction_barrier.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>

UMSYNC_NAMESPACE_BEGIN

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

  /// Copies the box `source` names into the tile at the same offset in every block of the mask
  /// (multicast_to, tensor_map.hpp; sm_90a). The fill's barrier is cluster-scope: the copy
  /// completes on each receiving block's barrier at this one's offset. The fill counts the box's
  /// bytes once for each block of the mask, as each of them loads one such box into the stage.
  template <class T, std::size_t N, tile_state State, class Layout, class Map, unsigned ClusterBlocks,
            std::uint16_t Mask>
  UMSYNC_DETAIL_FILL_NODISCARD __device__ auto load(tile<T, N, State, Layout>&& destination,
                                                    tensor_box<Map> const& source,
                                                    multicast_to<ClusterBlocks, Mask> to) && noexcept
  {
    static_cast<void>(to);
    constexpr std::size_t bytes = Map::box_bytes * multicast_to<ClusterBlocks, Mask>::receivers;
    static_assert(Scope == barrier_scope::cluster,
                  "umsync: a multicast copy completes on the barrier of every block in its mask: fill a "
                  "cluster-scope transaction barrier (barrier_scope::cluster)");
    static_assert(StaticBytes + bytes <= detail::max_transaction_bytes,
                  "umsync: one barrier phase expects at most 2^20 - 1 bytes (PTX ISA, mbarrier tx-count)");
    if constexpr (Scope == barrier_scope::cluster && detail::tensor_copy_accepts<T, Layout, Map>() &&
                  detail::fill_accepts<State>()) {
#if defined(UMSYNC_DEBUG)
      detail::check_multicast(ClusterBlocks, Mask);
      detail::note_issued(barrier_.storage(), static_cast<std::uint32_t>(bytes));
#endif
      cuda::ptx::cp_async_bulk_tensor(cuda::ptx::space_cluster, cuda::ptx::space_global,
                                      detail::tile_access::data(destination), source.map().address(),
                                      source.coordinates(), &barrier_.storage()->word, Mask);
    }
    bulk_fill<Scope, StaticBytes + bytes, HasDynamic> next(barrier_, dynamic_bytes_);
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

UMSYNC_NAMESPACE_END
