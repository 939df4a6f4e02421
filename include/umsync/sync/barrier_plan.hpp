// umsync/sync/barrier_plan.hpp: the named barriers one kernel uses, declared in one place and
// checked together at compile time.
//
//   using plan = umsync::barrier_plan<256,                                  // block size
//                                     umsync::reserved_barrier_ids<1, 7>,   // e.g. CUTLASS's
//                                     umsync::producer_consumer_spec<8, 0x0F, 0xF0>,  // index 0
//                                     umsync::producer_consumer_spec<9, 0xF0, 0x0F>,  // index 1
//                                     umsync::barrier_spec<10, 0xFF>>;               // index 2
//   __global__ void __launch_bounds__(plan::block_threads) kernel(...)
//   {
//     constexpr auto full = plan::barrier<0>();
//     ...
//   }
//
// The plan rejects a repeated id, an id inside a reserved range, more than 15 barriers and any
// barrier whose warps do not fit the block. Kernels take their barriers from the plan by
// position, so an id is written once, in the plan. A standalone named barrier in the same
// kernel is beyond what the types can see together: UMSYNC_DEBUG builds trap when one uses an
// id the plan's barriers use (named_barrier.hpp, barrier_owner), naming both barriers.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/named_barrier.hpp>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// Ids First..Last belong to someone else in this kernel (a library's own barriers).
template <unsigned First, unsigned Last>
struct reserved_barrier_ids {
  static_assert(First >= 1 && First <= Last && Last <= max_named_barrier_id,
                "umsync: a reserved barrier id range must satisfy 1 <= First <= Last <= 15");
};

/// A barrier all warps of `WarpMask` sync on (named_barrier).
template <unsigned Id, warp_mask_t WarpMask>
struct barrier_spec {};

/// A barrier producer warps arrive at and consumer warps wait on (producer_consumer_barrier).
template <unsigned Id, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
struct producer_consumer_spec {};

namespace detail {

__host__ __device__ constexpr std::uint32_t id_bit(unsigned id) noexcept { return id < 32U ? 1U << id : 0U; }

// The members let the plan go on as if the entry were not there, so one mistake gives one message.
template <class Entry>
struct plan_entry {
  static_assert(dependent_false<Entry>,
                "umsync: a barrier plan lists only reserved_barrier_ids, barrier_spec and producer_consumer_spec");
  static constexpr bool is_barrier = false;
  static constexpr std::uint32_t reserved_bits = 0;
  static constexpr std::uint32_t used_bits = 0;
  static constexpr warp_mask_t warps = 0;
  template <unsigned BlockThreads>
  using barrier = void;
};

template <unsigned First, unsigned Last>
struct plan_entry<reserved_barrier_ids<First, Last>> {
  // A template argument is never instantiated on its own: completing the type checks its range.
  static_assert(sizeof(reserved_barrier_ids<First, Last>) != 0);
  static constexpr bool is_barrier = false;
  static constexpr std::uint32_t reserved_bits = ((Last >= 31U ? 0xFFFFFFFFU : (1U << (Last + 1U)) - 1U)) &
                                                 ~((1U << First) - 1U);
  static constexpr std::uint32_t used_bits = 0;
  static constexpr warp_mask_t warps = 0;
  template <unsigned BlockThreads>
  using barrier = void;  // never chosen: reserved ranges take no position in the plan
};

template <unsigned Id, warp_mask_t WarpMask>
struct plan_entry<barrier_spec<Id, WarpMask>> {
  static constexpr bool is_barrier = true;
  static constexpr std::uint32_t reserved_bits = 0;
  static constexpr std::uint32_t used_bits = id_bit(Id);
  static constexpr warp_mask_t warps = WarpMask;
  template <unsigned BlockThreads>
  using barrier = named_barrier<Id, WarpMask, BlockThreads, barrier_owner::plan>;
};

template <unsigned Id, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
struct plan_entry<producer_consumer_spec<Id, ProducerWarps, ConsumerWarps>> {
  static constexpr bool is_barrier = true;
  static constexpr std::uint32_t reserved_bits = 0;
  static constexpr std::uint32_t used_bits = id_bit(Id);
  static constexpr warp_mask_t warps = ProducerWarps | ConsumerWarps;
  template <unsigned BlockThreads>
  using barrier = producer_consumer_barrier<Id, ProducerWarps, ConsumerWarps, BlockThreads, barrier_owner::plan>;
};

}  // namespace detail

/// A kernel's named barriers for blocks of `BlockThreads` threads. `Entries` are
/// reserved_barrier_ids ranges and barrier specs; barrier<I>() returns the I-th spec's barrier
/// (reserved ranges do not count as positions).
template <unsigned BlockThreads, class... Entries>
class barrier_plan {
  static_assert(BlockThreads >= 1 && BlockThreads <= max_block_threads,
                "umsync: a barrier plan's block size must be in 1..1024 threads");

  static constexpr std::size_t count = (std::size_t{0} + ... + (detail::plan_entry<Entries>::is_barrier ? 1U : 0U));
  static constexpr std::uint32_t used = (std::uint32_t{0} | ... | detail::plan_entry<Entries>::used_bits);
  static constexpr std::uint32_t reserved = (std::uint32_t{0} | ... | detail::plan_entry<Entries>::reserved_bits);

  static_assert(count <= max_named_barrier_id,
                "umsync: a kernel can use at most 15 named barriers (ids 1..15); the plan lists more");
  // Each check assumes the ones before it passed, so one mistake gives one message.
  static constexpr bool ids_distinct = count > max_named_barrier_id || detail::popcount32(used) == count;
  static_assert(ids_distinct, "umsync: a barrier plan lists the same barrier id twice");
  static_assert(!ids_distinct || (used & reserved) == 0,
                "umsync: a barrier plan uses an id inside a reserved range (reserved_barrier_ids)");
  static_assert(!ids_distinct || (used & reserved) != 0 ||
                    ((detail::plan_entry<Entries>::warps == 0 ||
                      detail::highest_bit(detail::plan_entry<Entries>::warps) < detail::warps_in_block(BlockThreads)) &&
                     ...),
                "umsync: a barrier in the plan names a warp beyond the last warp of the block");

  using barriers = decltype(std::tuple_cat(
      std::declval<std::conditional_t<detail::plan_entry<Entries>::is_barrier,
                                      std::tuple<typename detail::plan_entry<Entries>::template barrier<BlockThreads>>,
                                      std::tuple<>>>()...));

 public:
  static constexpr unsigned block_threads = BlockThreads;
  static constexpr std::size_t barrier_count = count;
  /// Ids this plan's barriers take, one bit per id (bit 0 is never set).
  static constexpr std::uint32_t used_ids = used;
  static constexpr std::uint32_t reserved_ids = reserved;

  /// The I-th barrier of the plan (a named_barrier or producer_consumer_barrier knowing the
  /// block size).
  template <std::size_t I>
  __host__ __device__ static constexpr auto barrier() noexcept
  {
    static_assert(I < count, "umsync: barrier index past the end of the barrier plan");
    // Past the end, barrier 0 stands in, so the index gives one message and not std::tuple's too.
    return std::tuple_element_t<(I < count ? I : 0), barriers>{};
  }

  template <std::size_t I>
  using barrier_type = std::tuple_element_t<I, barriers>;
};

UMSYNC_NAMESPACE_END
