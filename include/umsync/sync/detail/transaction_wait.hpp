// umsync/sync/detail/transaction_wait.hpp: the parity wait of a transaction barrier, bounded in
// UMSYNC_DEBUG builds, and the debug reports of its timeout, of a phase used on another barrier,
// and of the bytes expected against the bytes issued.
#pragma once

#include <umsync/config.hpp>
#include <umsync/sync/cluster.hpp>
#include <umsync/sync/transaction_barrier_storage.hpp>

#include <cuda/ptx>

#include <cstdint>
#include <cstdio>

#if !defined(UMSYNC_TRANSACTION_WAIT_NS)
/// UMSYNC_DEBUG: how long a transaction barrier wait spins before it traps (4 s: long enough for
/// compute-sanitizer's slowdown, short enough to beat a test's time limit).
#  define UMSYNC_TRANSACTION_WAIT_NS 4000000000ULL
#endif

UMSYNC_NAMESPACE_BEGIN

namespace detail {

template <barrier_scope Scope>
inline constexpr auto ptx_scope = [] {
  if constexpr (Scope == barrier_scope::block) {
    return cuda::ptx::scope_cta;
  } else {
    return cuda::ptx::scope_cluster;
  }
}();

__host__ __device__ constexpr char const* scope_name(barrier_scope scope) noexcept
{
  return scope == barrier_scope::block ? "block" : "cluster";
}

__device__ inline bool initializing_thread() noexcept
{
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}

#if defined(UMSYNC_DEBUG)
__device__ inline std::uint64_t transaction_clock_ns() noexcept
{
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// UMSYNC_DEBUG: a transaction barrier wait that timed out. Prints once per grid, traps.
template <barrier_scope Scope>
__device__ void report_transaction_timeout(transaction_barrier_storage<Scope> const* storage, unsigned long long phase,
                                           std::uint64_t waited_ns) noexcept
{
  bool const prints = cluster_trap_prints();
  if (prints) {
    unsigned long long const expected = atomicAdd(const_cast<unsigned long long*>(&storage->expected_bytes), 0ULL);
    unsigned long long const issued = atomicAdd(const_cast<unsigned long long*>(&storage->issued_bytes), 0ULL);
    std::printf("umsync: transaction barrier (%s scope, shared 0x%x) phase %llu (parity %llu) did not complete in "
                "block (%u,%u,%u) thread (%u,%u,%u) after %llu ns: %llu bytes expected, %llu bytes of bulk copies "
                "issued on it (totals since init); every expected byte must arrive and every arrival be made\n",
                scope_name(Scope), static_cast<unsigned>(__cvta_generic_to_shared(storage)), phase, phase & 1ULL,
                blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
                static_cast<unsigned long long>(waited_ns), expected, issued);
  }
  cluster_trap(prints);
}

/// UMSYNC_DEBUG: a phase object used on a barrier it does not belong to.
__device__ inline void report_foreign_phase(void const* owner, void const* used) noexcept
{
  bool const prints = cluster_trap_prints();
  if (prints) {
    std::printf("umsync: a barrier_phase of the transaction barrier at shared 0x%x was used to wait on the one at "
                "shared 0x%x in block (%u,%u,%u) thread (%u,%u,%u); each barrier is waited with its own phase\n",
                static_cast<unsigned>(__cvta_generic_to_shared(owner)),
                static_cast<unsigned>(__cvta_generic_to_shared(used)), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
                threadIdx.y, threadIdx.z);
  }
  cluster_trap(prints);
}
#endif

/// Waits (acquire at Scope) for the phase of `storage` whose parity is `parity`. Debug builds
/// give up after UMSYNC_TRANSACTION_WAIT_NS and trap; `phase` is then the phase number reported.
template <barrier_scope Scope>
__device__ void wait_parity(transaction_barrier_storage<Scope>* storage, std::uint32_t parity,
                            unsigned long long phase) noexcept
{
  static_cast<void>(phase);
#if defined(UMSYNC_DEBUG)
  std::uint64_t start = 0;
  for (unsigned polls = 0;; ++polls) {
    if (cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, ptx_scope<Scope>, &storage->word, parity)) {
      return;
    }
    if (polls == 0) {
      start = transaction_clock_ns();
    } else if (std::uint64_t const waited = transaction_clock_ns() - start; waited > UMSYNC_TRANSACTION_WAIT_NS) {
      report_transaction_timeout(storage, phase, waited);
    }
  }
#else
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, ptx_scope<Scope>, &storage->word, parity)) {
  }
#endif
}

#if defined(UMSYNC_DEBUG)
template <barrier_scope Scope>
__device__ void note_expected(transaction_barrier_storage<Scope>* storage, std::uint32_t bytes) noexcept
{
  atomicAdd(&storage->expected_bytes, static_cast<unsigned long long>(bytes));
}
template <barrier_scope Scope>
__device__ void note_issued(transaction_barrier_storage<Scope>* storage, std::uint32_t bytes) noexcept
{
  atomicAdd(&storage->issued_bytes, static_cast<unsigned long long>(bytes));
}
#endif

}  // namespace detail

UMSYNC_NAMESPACE_END
