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

#include <cstdint>
#include <cstdio>

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

#if defined(UMSYNC_DEBUG)
__device__ inline unsigned linear_thread_index() noexcept
{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ inline unsigned block_thread_count() noexcept { return blockDim.x * blockDim.y * blockDim.z; }

/// UMSYNC_DEBUG: the calling warp is one the barrier counts, the block has the declared size,
/// and (aligned forms) the whole warp executes this instruction together. Prints and traps:
/// a barrier misuse otherwise shows up as a hang or a silent race.
__device__ inline void check_barrier_call(unsigned id, warp_mask_t allowed_warps, unsigned block_threads, bool aligned,
                                          char const* operation) noexcept
{
  unsigned const thread = linear_thread_index();
  unsigned const warp = thread / 32U;
  if (block_threads != 0 && block_thread_count() != block_threads) {
    std::printf("umsync: named barrier %u %s: block (%u,%u,%u) has %u threads but the barrier was declared for %u\n",
                id, operation, blockIdx.x, blockIdx.y, blockIdx.z, block_thread_count(), block_threads);
    __trap();
  }
  if (((allowed_warps >> warp) & 1U) == 0) {
    std::printf("umsync: named barrier %u %s: warp %u of block (%u,%u,%u) is not in the warp mask 0x%08x\n", id,
                operation, warp, blockIdx.x, blockIdx.y, blockIdx.z, allowed_warps);
    __trap();
  }
  if (aligned) {
    unsigned const total = block_thread_count();
    unsigned const lanes_present = total - warp * 32U >= 32U ? 32U : total - warp * 32U;
    unsigned const whole_warp = lanes_present == 32U ? 0xFFFFFFFFU : (1U << lanes_present) - 1U;
    unsigned const active = __activemask();
    // The id and count are compile-time constants of this instruction; what can differ between
    // the lanes is whether all of them are here.
    int uniform = 0;
    static_cast<void>(__match_all_sync(active, (id << 16U) | allowed_warps, &uniform));
    if (active != whole_warp || uniform == 0) {
      std::printf("umsync: named barrier %u %s (aligned): warp %u of block (%u,%u,%u) is diverged "
                  "(active lanes 0x%08x); use the unaligned form\n",
                  id, operation, warp, blockIdx.x, blockIdx.y, blockIdx.z, active);
      __trap();
    }
  }
}

/// One use of a barrier id in a block, as two words that are only read and written atomically
/// (a tool such as racecheck sees no hazard in them): `stamp` is block_stamp() with the owner
/// in bit 0, `warps` the producer mask in the high half and the consumer mask (0 for a
/// named_barrier) in the low half.
struct barrier_claim {
  unsigned long long stamp;
  unsigned long long warps;
};

/// A value that differs between any two blocks that ever run, as far as a debug check needs:
/// the grid's launch number (%gridid) and the block's index; bit 0 is left clear. Shared
/// memory is not cleared between blocks, so a claim is believed only when it carries this
/// block's stamp.
__device__ inline unsigned long long block_stamp() noexcept
{
  unsigned long long grid = 0;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(grid));
  unsigned long long const block = blockIdx.x +
                                   static_cast<unsigned long long>(gridDim.x) * (blockIdx.y + gridDim.y * blockIdx.z);
  return ((grid * 0x9E3779B97F4A7C15ULL) ^ (block + 0x632BE59BD9B4E019ULL)) & ~1ULL;
}

/// UMSYNC_DEBUG: a barrier_plan's id is used by no other barrier in the block. The first use
/// of an id in a block claims it (in 256 bytes of shared memory that debug builds add); a later
/// use by a different barrier, where either one comes from a plan, prints both and traps. Two
/// first uses racing may both claim; the mismatch is then reported at the next use.
__device__ inline void check_barrier_owner(unsigned id, warp_mask_t producers, warp_mask_t consumers,
                                           barrier_owner owner) noexcept
{
  __shared__ barrier_claim claims[max_named_barrier_id + 1];
  barrier_claim& claim = claims[id];
  unsigned long long const mine = static_cast<unsigned>(owner);
  unsigned long long const stamp = block_stamp() | mine;
  unsigned long long const warps = (static_cast<unsigned long long>(producers) << 32U) | consumers;
  unsigned long long const seen = atomicAdd(&claim.stamp, 0ULL);
  if ((seen & ~1ULL) != (stamp & ~1ULL)) {
    atomicExch(&claim.warps, warps);
    __threadfence_block();
    atomicExch(&claim.stamp, stamp);
    return;
  }
  unsigned long long const seen_warps = atomicAdd(&claim.warps, 0ULL);
  unsigned long long const seen_owner = seen & 1ULL;
  unsigned long long const planned = static_cast<unsigned>(barrier_owner::plan);
  if ((seen_warps == warps && seen_owner == mine) || (seen_owner != planned && mine != planned)) {
    return;
  }
  // Every thread that gets here traps. The one that takes the claim's warps prints, once, in
  // one printf (the lines of many threads would interleave); the others wait until it has
  // printed, since a trap ends the kernel and its unflushed output with it.
  constexpr unsigned long long printing = ~0ULL;
  constexpr unsigned long long printed = ~1ULL;
  unsigned long long const first = atomicExch(&claim.warps, printing);
  if (first == printing) {
    while (atomicAdd(&claim.warps, 0ULL) == printing) {
    }
  } else if (first == printed) {
    atomicExch(&claim.warps, printed);  // put back what this thread's exchange took
  } else {
    char const* const owners[] = {"standalone", "a barrier_plan"};
    auto const first_producers = static_cast<warp_mask_t>(first >> 32U);
    auto const first_consumers = static_cast<warp_mask_t>(first);
    char const* const before = owners[seen_owner];
    char const* const now = owners[mine];
    if (first_consumers == 0 && consumers == 0) {
      std::printf("umsync: barrier id %u is used by two barriers in block (%u,%u,%u): named_barrier (warps 0x%08x, "
                  "%s) and named_barrier (warps 0x%08x, %s); a barrier_plan's ids belong to its barriers only\n",
                  id, blockIdx.x, blockIdx.y, blockIdx.z, first_producers, before, producers, now);
    } else if (first_consumers == 0) {
      std::printf("umsync: barrier id %u is used by two barriers in block (%u,%u,%u): named_barrier (warps 0x%08x, "
                  "%s) and producer_consumer_barrier (producers 0x%08x, consumers 0x%08x, %s); a barrier_plan's ids "
                  "belong to its barriers only\n",
                  id, blockIdx.x, blockIdx.y, blockIdx.z, first_producers, before, producers, consumers, now);
    } else if (consumers == 0) {
      std::printf("umsync: barrier id %u is used by two barriers in block (%u,%u,%u): producer_consumer_barrier "
                  "(producers 0x%08x, consumers 0x%08x, %s) and named_barrier (warps 0x%08x, %s); a barrier_plan's "
                  "ids belong to its barriers only\n",
                  id, blockIdx.x, blockIdx.y, blockIdx.z, first_producers, first_consumers, before, producers, now);
    } else {
      std::printf("umsync: barrier id %u is used by two barriers in block (%u,%u,%u): producer_consumer_barrier "
                  "(producers 0x%08x, consumers 0x%08x, %s) and producer_consumer_barrier (producers 0x%08x, "
                  "consumers 0x%08x, %s); a barrier_plan's ids belong to its barriers only\n",
                  id, blockIdx.x, blockIdx.y, blockIdx.z, first_producers, first_consumers, before, producers,
                  consumers, now);
    }
    atomicExch(&claim.warps, printed);
  }
  __trap();
}
#endif

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

  /// Waits until all `thread_count` threads have arrived (unaligned form, as __barrier_sync_count).
  __device__ void sync() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, WarpMask, BlockThreads, false, "sync");
    detail::check_barrier_owner(Id, WarpMask, 0, Owner);
#endif
    __barrier_sync_count(Id, thread_count);
  }

  /// The same wait for warp-uniform control flow only (`barrier.sync.aligned` = `bar.sync`).
  __device__ void sync_aligned() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, WarpMask, BlockThreads, true, "sync_aligned");
    detail::check_barrier_owner(Id, WarpMask, 0, Owner);
#endif
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

  /// Producer side: signals that its writes are done and goes on without waiting.
  __device__ void producer_arrive() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, ProducerWarps, BlockThreads, false, "producer_arrive");
    detail::check_barrier_owner(Id, ProducerWarps, ConsumerWarps, Owner);
#endif
    asm volatile("barrier.arrive %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }

  /// Consumer side: waits until every producer has arrived (and the other consumers are here).
  __device__ void consumer_wait() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, ConsumerWarps, BlockThreads, false, "consumer_wait");
    detail::check_barrier_owner(Id, ProducerWarps, ConsumerWarps, Owner);
#endif
    __barrier_sync_count(Id, thread_count);
  }

  /// Aligned forms (`barrier.arrive.aligned` = `bar.arrive`, `barrier.sync.aligned`): warp-uniform
  /// control flow only.
  __device__ void producer_arrive_aligned() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, ProducerWarps, BlockThreads, true, "producer_arrive_aligned");
    detail::check_barrier_owner(Id, ProducerWarps, ConsumerWarps, Owner);
#endif
    asm volatile("barrier.arrive.aligned %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }

  __device__ void consumer_wait_aligned() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_barrier_call(Id, ConsumerWarps, BlockThreads, true, "consumer_wait_aligned");
    detail::check_barrier_owner(Id, ProducerWarps, ConsumerWarps, Owner);
#endif
    asm volatile("barrier.sync.aligned %0, %1;" ::"n"(Id), "n"(thread_count) : "memory");
  }
};

UMSYNC_NAMESPACE_END
