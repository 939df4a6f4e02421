// umsync/sync/named_barrier.hpp: hardware named barriers whose id and participating warps are
// fixed at compile time.
//
//   umsync::named_barrier<1, 0x0F> group;             // warps 0..3, 128 threads, barrier 1
//   group.sync();
//
//   // warps 0..3 produce, warps 4..7 consume; the count (256) is the same on both sides
//   umsync::producer_consumer_barrier<2, 0x0F, 0xF0> full;
//   if (producer) { write_tile(); full.producer_arrive(); }
//   else          { full.consumer_wait(); read_tile(); }
//
// A warp mask names warps by their index in the block (linear thread index / 32), so the thread
// count is 32 * popcount(mask) and can never be a count that is not a multiple of 32.
//
// Aligned or not. sync() and producer_arrive()/consumer_wait() emit the unaligned forms
// (`barrier.sync id, n` / `barrier.arrive id, n`), which is what __barrier_sync_count() emits:
// they stay correct when the threads of a warp reach the barrier from different branches. The
// *_aligned() forms (`barrier.sync.aligned`, which is PTX's `bar.sync`) promise that every
// thread of each participating warp executes that same instruction; breaking the promise is
// undefined behaviour, not an error. On sm_90 both forms give the same BAR instruction in
// straight-line code, so the safe form is the default and the aligned one is an explicit choice
// (in UMSYNC_DEBUG builds the aligned forms check that the calling warp is converged).
#pragma once

#include <umsync/config.hpp>
#include <umsync/sync/detail/barrier_checks.hpp>

#include <cstdint>

UMSYNC_NAMESPACE_BEGIN

/// Warps of a block, one bit per warp index (bit w: threads 32w..32w+31). 32 warps is the
/// largest block (1024 threads).
using warp_mask_t = std::uint32_t;

/// The barrier __syncthreads() uses; named barriers take the other fifteen.
inline constexpr unsigned syncthreads_barrier_id = 0;
inline constexpr unsigned max_named_barrier_id = 15;
inline constexpr unsigned max_block_threads = 1024;

/// Who a barrier's id belongs to. A barrier_plan's barriers own their ids for the whole kernel:
/// in UMSYNC_DEBUG builds any other barrier that uses one of those ids in the same block traps,
/// naming both (ids outside a plan may be reused in sequence, which is legal).
enum class barrier_owner {
  standalone,  ///< declared on its own in the kernel
  plan,        ///< taken from a barrier_plan (barrier_plan.hpp)
};
static_assert(static_cast<unsigned>(barrier_owner::standalone) == detail::standalone_owner &&
              static_cast<unsigned>(barrier_owner::plan) == detail::plan_owner);

namespace detail {

__host__ __device__ constexpr unsigned popcount32(std::uint32_t bits) noexcept
{
  unsigned count = 0;
  for (; bits != 0; bits &= bits - 1U) {
    ++count;
  }
  return count;
}

/// Index of the highest set bit; 0 for 0 (callers reject empty masks first).
__host__ __device__ constexpr unsigned highest_bit(std::uint32_t bits) noexcept
{
  unsigned index = 0;
  while (bits > 1U) {
    bits >>= 1U;
    ++index;
  }
  return index;
}

/// Warps in a block of `threads` threads (the last one may be partial).
__host__ __device__ constexpr unsigned warps_in_block(unsigned threads) noexcept { return (threads + 31U) / 32U; }

/// Compile-time rules shared by every named barrier type. `BlockThreads` 0 means "not declared".
template <unsigned Id, warp_mask_t WarpMask, unsigned BlockThreads>
struct named_barrier_rules {
  static_assert(Id != syncthreads_barrier_id, "umsync: named barrier id must be in 1..15; id 0 is __syncthreads()");
  static_assert(Id <= max_named_barrier_id,
                "umsync: named barrier id must be in 1..15; a block has 16 hardware barriers");
  static_assert(WarpMask != 0, "umsync: a named barrier's warp mask is empty; name at least one warp");
  static_assert(BlockThreads <= max_block_threads, "umsync: a block has at most 1024 threads");
  static constexpr unsigned thread_count = 32U * popcount32(WarpMask);
  static constexpr bool count_fits = BlockThreads == 0 || thread_count <= BlockThreads;
  static_assert(count_fits,
                "umsync: a named barrier's thread count (32 * warps in its mask) is larger than the block size");
  // Only checked when the count fits, so one mistake gives one message.
  static_assert(!count_fits || BlockThreads == 0 || WarpMask == 0 ||
                    highest_bit(WarpMask) < warps_in_block(BlockThreads),
                "umsync: a named barrier's warp mask names a warp beyond the last warp of the block");
};

}  // namespace detail

/// Hardware barrier `Id` (1..15) shared by the warps in `WarpMask`; every one of those warps
/// calls sync(). `BlockThreads`, when given, is the kernel's block size: the count is checked
/// against it at compile time (and the real block size against it in UMSYNC_DEBUG builds).
template <unsigned Id, warp_mask_t WarpMask, unsigned BlockThreads = 0, barrier_owner Owner = barrier_owner::standalone>
class named_barrier : detail::named_barrier_rules<Id, WarpMask, BlockThreads> {
  using rules = detail::named_barrier_rules<Id, WarpMask, BlockThreads>;

 public:
  static constexpr unsigned id = Id;
  static constexpr warp_mask_t warp_mask = WarpMask;
  static constexpr unsigned thread_count = rules::thread_count;
  static constexpr unsigned block_threads = BlockThreads;
  static constexpr barrier_owner owner = Owner;

 private:
  static constexpr unsigned owner_bit = Owner == barrier_owner::plan ? detail::plan_owner : detail::standalone_owner;

 public:
  /// Waits until all `thread_count` threads have arrived (unaligned form, as __barrier_sync_count).
  __device__ void sync() const noexcept
  {
    detail::barrier_prologue(Id, WarpMask, WarpMask, 0, BlockThreads, false, "sync", owner_bit);
    __barrier_sync_count(Id, thread_count);
  }

  /// The same wait for warp-uniform control flow only (`barrier.sync.aligned` = `bar.sync`).
  __device__ void sync_aligned() const noexcept
  {
    detail::barrier_prologue(Id, WarpMask, WarpMask, 0, BlockThreads, true, "sync_aligned", owner_bit);
    asm volatile("barrier.sync.aligned %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }
};

/// One barrier id used in one direction: the producer warps arrive (they do not wait) after
/// writing, the consumer warps wait and then read. Both sides use the same count, the warps of
/// both masks together, so a mismatched count cannot be written. The arrive has release and the
/// wait acquire semantics for the block's memory (PTX memory model, barrier operations).
/// For the way back (buffer free again) declare a second barrier with the roles swapped.
template <unsigned Id, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps, unsigned BlockThreads = 0,
          barrier_owner Owner = barrier_owner::standalone>
class producer_consumer_barrier : detail::named_barrier_rules<Id, ProducerWarps | ConsumerWarps, BlockThreads> {
  static_assert(ProducerWarps != 0 && ConsumerWarps != 0,
                "umsync: a producer/consumer barrier needs at least one producer warp and one consumer warp");
  static_assert((ProducerWarps & ConsumerWarps) == 0,
                "umsync: a warp cannot be both producer and consumer of one barrier; it would arrive twice");
  using rules = detail::named_barrier_rules<Id, ProducerWarps | ConsumerWarps, BlockThreads>;

 public:
  static constexpr unsigned id = Id;
  static constexpr warp_mask_t producer_warps = ProducerWarps;
  static constexpr warp_mask_t consumer_warps = ConsumerWarps;
  static constexpr unsigned thread_count = rules::thread_count;
  static constexpr unsigned block_threads = BlockThreads;
  static constexpr barrier_owner owner = Owner;

 private:
  static constexpr unsigned owner_bit = Owner == barrier_owner::plan ? detail::plan_owner : detail::standalone_owner;

 public:
  /// Producer side: signals that its writes are done and goes on without waiting.
  __device__ void producer_arrive() const noexcept
  {
    detail::barrier_prologue(Id, ProducerWarps, ProducerWarps, ConsumerWarps, BlockThreads, false, "producer_arrive",
                             owner_bit);
    asm volatile("barrier.arrive %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }

  /// Consumer side: waits until every producer has arrived (and the other consumers are here).
  __device__ void consumer_wait() const noexcept
  {
    detail::barrier_prologue(Id, ConsumerWarps, ProducerWarps, ConsumerWarps, BlockThreads, false, "consumer_wait",
                             owner_bit);
    __barrier_sync_count(Id, thread_count);
  }

  /// Aligned forms (`barrier.arrive.aligned` = `bar.arrive`, `barrier.sync.aligned`): warp-uniform
  /// control flow only.
  __device__ void producer_arrive_aligned() const noexcept
  {
    detail::barrier_prologue(Id, ProducerWarps, ProducerWarps, ConsumerWarps, BlockThreads, true,
                             "producer_arrive_aligned", owner_bit);
    asm volatile("barrier.arrive.aligned %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }

  __device__ void consumer_wait_aligned() const noexcept
  {
    detail::barrier_prologue(Id, ConsumerWarps, ProducerWarps, ConsumerWarps, BlockThreads, true,
                             "consumer_wait_aligned", owner_bit);
    asm volatile("barrier.sync.aligned %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }
};

UMSYNC_NAMESPACE_END
