// umsync/sync/transaction_barrier_storage.hpp: what a transaction barrier is made of: its scope
// (block or cluster), its storage in shared memory, and the key that only umsync's barrier and
// copy types hold. Usage: transaction_barrier.hpp.
#pragma once

#include <umsync/config.hpp>

#include <cstdint>

UMSYNC_NAMESPACE_BEGIN

/// Which threads a transaction barrier synchronizes, and so the scope of its release (arrive)
/// and acquire (wait): the block's own threads, or the threads of every block of the cluster.
enum class barrier_scope { block, cluster };

/// One mbarrier in shared memory: declare it __shared__ and hand it to init_barriers(). Debug
/// builds add the byte counts their messages report.
template <barrier_scope Scope>
struct transaction_barrier_storage {
  alignas(8) std::uint64_t word;
#if defined(UMSYNC_DEBUG)
  unsigned long long expected_bytes;  ///< expect_tx totals since init (all phases)
  unsigned long long issued_bytes;    ///< bytes of the bulk copies issued on this barrier since init
#endif
};

namespace detail {

/// Made only through transaction_access, by umsync's transaction barrier and copy types: the
/// constructors that take it are the real ones.
class transaction_key {
  constexpr transaction_key() noexcept = default;
  friend struct transaction_access;
};

struct transaction_access {
  __host__ __device__ static constexpr transaction_key key() noexcept { return {}; }
};
}  // namespace detail

UMSYNC_NAMESPACE_END
