// umsync/sync/detail/pipeline_checks.hpp: what the pipeline's stage handles and roles share: the
// key only they hold, the consumer's release arrival, and the UMSYNC_DEBUG reports of a stage
// index out of range, a role's call from another warp and a misused stage handle.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/bulk_copy.hpp>
#include <umsync/sync/named_barrier.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/transaction_barrier.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// Made only through pipeline_access: the constructors that take it are the real ones.
class pipeline_key {
  constexpr pipeline_key() noexcept = default;
  friend struct pipeline_access;
};

struct pipeline_access {
  __host__ __device__ static constexpr pipeline_key key() noexcept { return {}; }
};

/// The "barrier" a consumer's release ends with: its arrival on the stage's empty barrier, after
/// the proxy fence tile::release() issues (generic reads before the refill's async writes).
struct empty_arrival {
  transaction_barrier<barrier_scope::block> empty;
  __device__ void sync() const noexcept { empty.arrive(); }
};

#if defined(UMSYNC_DEBUG)
__device__ inline unsigned pipeline_warp() noexcept
{
  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32U;
}

/// UMSYNC_DEBUG: `operation` on a stage index past the last stage.
__device__ inline void check_pipeline_stage(std::size_t stage, std::size_t stages, char const* operation) noexcept
{
  if (stage < stages) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: pipeline %s of stage %llu in block (%u,%u,%u) thread (%u,%u,%u): the pipeline has %llu "
                "stages\n",
                operation, static_cast<unsigned long long>(stage), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
                threadIdx.y, threadIdx.z, static_cast<unsigned long long>(stages));
  }
  cluster_trap(prints);
}

/// UMSYNC_DEBUG: a role's operation from a warp outside the role's mask.
__device__ inline void check_pipeline_role(warp_mask_t warps, char const* role, char const* operation) noexcept
{
  unsigned const warp = pipeline_warp();
  if (warp < 32U && ((warps >> warp) & 1U) != 0U) {
    return;
  }
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: pipeline %s by warp %u of block (%u,%u,%u) thread (%u,%u,%u), which is not a %s warp (%s "
                "warps 0x%08x); each role's operations run in its own warps\n",
                operation, warp, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, role, role,
                warps);
  }
  cluster_trap(prints);
}

/// UMSYNC_DEBUG: a stage handle misused (`what`, on stage `stage`), with the rule.
__device__ inline void report_pipeline_stage(char const* what, unsigned stage, char const* rule) noexcept
{
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: pipeline stage %u %s in block (%u,%u,%u) thread (%u,%u,%u); %s\n", stage, what, blockIdx.x,
                blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, rule);
  }
  cluster_trap(prints);
}
#endif

/// A stage handle assigned (`Source` is what it is given): the read stage's rule when a full
/// stage and an empty (acquired) one meet, the handle's own otherwise.
template <bool FullAndEmpty, class Source>
__device__ constexpr void reject_stage_reassignment() noexcept
{
  if constexpr (FullAndEmpty) {
    static_assert(dependent_false<Source>,
                  "umsync: a read (full) pipeline stage becomes a refill target only through release() and the "
                  "producer's own acquire(): a waited stage's handle is never turned into, or assigned to or from, "
                  "an acquired one");
  } else {
    static_assert(dependent_false<Source>,
                  "umsync: a pipeline stage handle cannot be reassigned: each handle is one acquire() or wait(), "
                  "consumed by its own fill() or release()");
  }
}

/// An acquired stage made from a waited one: the read stage's rule. Returns nothing usable (it
/// is only instantiated to fail).
template <class Stage, class Source>
__device__ Stage&& reject_stage_conversion() noexcept
{
  reject_stage_reassignment<true, Source>();
  return static_cast<Stage&&>(*static_cast<Stage*>(nullptr));
}

}  // namespace detail

UMSYNC_NAMESPACE_END
