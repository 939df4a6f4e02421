// umsync/sync/detail/barrier_checks.hpp: the UMSYNC_DEBUG checks of named_barrier.hpp's barriers
// (internal). Every barrier operation starts with barrier_prologue, which in debug builds checks
// the calling warp, the block size, convergence for the aligned forms, and that a barrier_plan's
// id is used by no other barrier in the block (printing and trapping otherwise), and in release
// builds is empty: the SASS check (scripts/ci/sass-check.sh) holds the release code to the raw one.
#pragma once

#include <umsync/config.hpp>

#include <cstdint>
#include <cstdio>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// barrier_owner's values as the checks see them (named_barrier.hpp): bit 0 of a claim.
inline constexpr unsigned standalone_owner = 0;
inline constexpr unsigned plan_owner = 1;

#if defined(UMSYNC_DEBUG)
__device__ inline unsigned linear_thread_index() noexcept
{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

__device__ inline unsigned block_thread_count() noexcept { return blockDim.x * blockDim.y * blockDim.z; }

/// UMSYNC_DEBUG: the calling warp is one the barrier counts, the block has the declared size,
/// and (aligned forms) the whole warp executes this instruction together. Prints and traps:
/// a barrier misuse otherwise shows up as a hang or a silent race.
__device__ inline void check_barrier_call(unsigned id, std::uint32_t allowed_warps, unsigned block_threads,
                                          bool aligned, char const* operation) noexcept
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
__device__ inline void check_barrier_owner(unsigned id, std::uint32_t producers, std::uint32_t consumers,
                                           unsigned owner) noexcept
{
  __shared__ barrier_claim claims[16];  // one per hardware barrier id
  barrier_claim& claim = claims[id];
  unsigned long long const mine = owner;
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
  unsigned long long const planned = plan_owner;
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
    auto const first_producers = static_cast<std::uint32_t>(first >> 32U);
    auto const first_consumers = static_cast<std::uint32_t>(first);
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

/// The checks one barrier operation runs first (UMSYNC_DEBUG); nothing in release builds.
/// `calling_warps`: the warps allowed to call this operation; `producers`/`consumers`: the
/// barrier's roles (consumers 0 for a named_barrier); `owner`: standalone_owner or plan_owner.
__device__ inline void barrier_prologue(unsigned id, std::uint32_t calling_warps, std::uint32_t producers,
                                        std::uint32_t consumers, unsigned block_threads, bool aligned,
                                        char const* operation, unsigned owner) noexcept
{
#if defined(UMSYNC_DEBUG)
  check_barrier_call(id, calling_warps, block_threads, aligned, operation);
  check_barrier_owner(id, producers, consumers, owner);
#else
  static_cast<void>(id);
  static_cast<void>(calling_warps);
  static_cast<void>(producers);
  static_cast<void>(consumers);
  static_cast<void>(block_threads);
  static_cast<void>(aligned);
  static_cast<void>(operation);
  static_cast<void>(owner);
#endif
}

}  // namespace detail
UMSYNC_NAMESPACE_END
