// umsync/sync/cluster.hpp: thread block clusters (sm_90): the cluster barrier, a block's rank,
// and distributed shared memory that can only be mapped after a cluster barrier and is kept
// alive for its readers by a closing one.
//
//   __global__ void __cluster_dims__(2, 1, 1) reduce(unsigned const* in, unsigned* out)
//   {
//     __shared__ unsigned partial;
//     partial = block_sum(in);                          // this block's own shared memory
//     unsigned total = 0;
//     {
//       umsync::cluster_shared_scope scope;             // opening barrier: every block has started
//       auto const peer = scope.map(&partial, umsync::cluster::block_rank() ^ 1U);
//       total = partial + peer[0];                      // the peer's shared memory
//     }                                                 // closing barrier: no block exits while read
//   }
//
//   auto arrival = umsync::cluster::arrive();           // split barrier: work between the halves
//   independent_work();
//   umsync::cluster_shared_scope scope(arrival.wait()); // the wait opens the scope
//
// What the types prove and what they cannot: docs/clusters.md. A view (remote_shared) comes only
// from a scope, and a scope only from a barrier that has completed in this thread (its default
// constructor runs one, or it takes, by value, the proof that cluster::sync() or
// cluster_arrival::wait() returns, so only the call's own result opens it, never a proof kept
// for later). The view can be neither copied nor assigned, so a named view cannot leave the
// block it was declared in, and the scope's destructor runs the closing barrier on every way out
// of that block, early returns included. A raw pointer taken from a view, a view a helper
// returns as a prvalue (no constructor runs, so none can refuse it), a whole block that exits
// before it opens its scope, and blocks that run different numbers of cluster barriers are
// beyond the types (docs/clusters.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

class cluster;
/// nodiscard on the type, not only on cluster::arrive(): an arrival returned through the
/// caller's own function cannot be dropped either.
class [[nodiscard("umsync: a cluster arrival must be waited: keep it and call wait() before the next cluster "
                  "barrier")]] cluster_arrival;
class cluster_shared_scope;
template <class T>
class remote_shared;

namespace detail {

/// Made only by umsync's cluster types: the constructors that take it are the real ones.
class cluster_key {
  constexpr cluster_key() noexcept = default;
  friend class umsync::cluster;
  friend class umsync::cluster_arrival;
  friend class umsync::cluster_shared_scope;
};

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: which failing thread prints. One word per module (each translation unit
/// without -rdc), never reset: the trap that follows ends the context.
static __device__ unsigned cluster_trap_claim = 0;  // 0 free, 1 printing, 2 printed

/// True for the first failing thread of the grid, which prints and then calls cluster_trap.
__device__ inline bool cluster_trap_prints() noexcept { return atomicCAS(&cluster_trap_claim, 0U, 1U) == 0U; }

/// Traps. The printing thread first marks its line printed; the others wait for that, since a
/// trap ends the kernel and its unflushed output with it.
__device__ inline void cluster_trap(bool printed_here) noexcept
{
  if (printed_here) {
    atomicExch(&cluster_trap_claim, 2U);
  } else {
    while (atomicAdd(&cluster_trap_claim, 0U) != 2U) {
      __nanosleep(1000);
    }
  }
  __trap();
}

__device__ inline std::uint32_t cluster_block_count() noexcept { return cuda::ptx::get_sreg_cluster_nctarank(); }
#endif

}  // namespace detail

/// The proof that a cluster barrier has completed in the calling thread since the kernel
/// started, so every block of the cluster has started (the CUDA programming guide's distributed
/// shared memory section: a block may access another block's shared memory only once that block
/// is known to be running). Returned by cluster::sync() and cluster_arrival::wait() only; it
/// cannot be made, copied or moved, only handed to cluster_shared_scope at once: the scope takes
/// it by value, which only the call's own result (a prvalue, C++17 guaranteed elision) can
/// initialise. A proof kept in a variable may be named, but never spent.
class cluster_barrier_passed {
 public:
  /// Declared only so that forging a proof fails with the rule's message.
  template <class Forged = void>
  __device__ cluster_barrier_passed() noexcept
  {
    static_assert(detail::dependent_false<Forged>,
                  "umsync: a cluster_barrier_passed proof comes only from cluster::sync() or "
                  "cluster_arrival::wait(); it cannot be made");
  }
  /// Declared only so that copying or moving a kept proof, or making one from anything else,
  /// fails with the rule's message (it wins over the deleted copy constructor below for every
  /// argument but a volatile one).
  template <class Other>
  __device__ cluster_barrier_passed(Other&&) noexcept  // NOLINT: exists to reject with a message
  {
    if constexpr (std::is_same_v<std::remove_cvref_t<Other>, cluster_barrier_passed>) {
      static_assert(detail::dependent_false<Other>,
                    "umsync: a cluster_barrier_passed proof cannot be stored or moved: pass the barrier's own result "
                    "to cluster_shared_scope at once (cluster_shared_scope scope(arrival.wait())), so nothing comes "
                    "between the barrier and the scope it opens");
    } else {
      static_assert(detail::dependent_false<Other>,
                    "umsync: a cluster_barrier_passed proof comes only from cluster::sync() or "
                    "cluster_arrival::wait(); it cannot be made");
    }
  }
  /// The one copy constructor, deleted, and volatile so that the template above is the better
  /// match for a const proof too; no move constructor is declared.
  cluster_barrier_passed(cluster_barrier_passed const volatile&) = delete;
  cluster_barrier_passed& operator=(cluster_barrier_passed const&) = delete;

 private:
  __device__ constexpr explicit cluster_barrier_passed(detail::cluster_key) noexcept {}
  friend class cluster;
  friend class cluster_arrival;
};

/// The cluster the calling block belongs to. Every non-exited thread of every block of the
/// cluster takes part in each cluster barrier (PTX ISA, barrier.cluster), so all of them run
/// the same sequence of barriers.
class cluster {
 public:
  cluster() = delete;

  /// The block's rank in its cluster, 0..block_count()-1 (%cluster_ctarank).
  __device__ static std::uint32_t block_rank() noexcept { return cuda::ptx::get_sreg_cluster_ctarank(); }
  /// Blocks in the cluster (%cluster_nctarank); 1 in a kernel launched without a cluster shape.
  __device__ static std::uint32_t block_count() noexcept { return cuda::ptx::get_sreg_cluster_nctarank(); }
  /// True when the kernel was launched with a cluster shape (%is_explicit_cluster).
  __device__ static bool launched_as_cluster() noexcept { return cuda::ptx::get_sreg_is_explicit_cluster(); }

  /// Arrive (release) and wait (acquire): the writes of every thread of the cluster before the
  /// barrier are visible to every thread after it. Unaligned forms, which stay correct when the
  /// threads of a warp arrive from different branches.
  __device__ static cluster_barrier_passed sync() noexcept
  {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
    return cluster_barrier_passed(detail::cluster_key{});
  }

  /// The first half of a split barrier (arrive, release). The thread must wait on the result
  /// before it arrives again; dropping it does not compile.
  [[nodiscard("umsync: a cluster arrival must be waited: keep it and call wait() before the next cluster "
              "barrier")]] __device__ static cluster_arrival
  arrive() noexcept;
};

/// One thread's arrival at the cluster barrier, waiting to be completed by wait(). PTX requires
/// arrive and wait to alternate in each thread; UMSYNC_DEBUG builds trap when an arrival is
/// destroyed unwaited or waited twice.
class cluster_arrival {
 public:
  cluster_arrival(cluster_arrival const&) = delete;
  cluster_arrival& operator=(cluster_arrival const&) = delete;

  /// Waits (acquire) for every thread of the cluster to arrive; returns the proof that opens a
  /// cluster_shared_scope.
  __device__ cluster_barrier_passed wait() noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (waited_) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: cluster_arrival waited twice in block (%u,%u,%u) thread (%u,%u,%u); each arrival is "
                    "waited once\n",
                    blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
      }
      detail::cluster_trap(prints);
    }
    waited_ = true;
#endif
    cuda::ptx::barrier_cluster_wait(cuda::ptx::sem_acquire);
    return cluster_barrier_passed(detail::cluster_key{});
  }

#if defined(UMSYNC_DEBUG)
  __device__ ~cluster_arrival()
  {
    if (!waited_) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: cluster_arrival destroyed without wait() in block (%u,%u,%u) thread (%u,%u,%u); the "
                    "thread must wait before it arrives again or exits\n",
                    blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
      }
      detail::cluster_trap(prints);
    }
  }
#endif

 private:
  __device__ explicit cluster_arrival(detail::cluster_key) noexcept
  {
    cuda::ptx::barrier_cluster_arrive(cuda::ptx::sem_release);
  }
  friend class cluster;
#if defined(UMSYNC_DEBUG)
  bool waited_ = false;
#endif
};

__device__ inline cluster_arrival cluster::arrive() noexcept { return cluster_arrival(detail::cluster_key{}); }

/// Another block's shared memory, mapped into the caller's address space (`mapa`): elements of
/// type T at the same offset as the caller's own variable. Obtained only from
/// cluster_shared_scope::map(), so only after a cluster barrier; neither copied nor assigned, so
/// a named view dies before the scope it came from (declared before it) closes.
template <class T>
class remote_shared {
 public:
  /// Declared only so that a view made any other way fails with the rule's message.
  template <class... Args>
  __device__ remote_shared(Args&&...) noexcept  // NOLINT: exists to reject with a message
  {
    if constexpr ((std::is_same_v<std::remove_cvref_t<Args>, remote_shared> || ...)) {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a remote_shared view cannot be copied or stored: it is valid only inside the "
                    "cluster_shared_scope that mapped it");
    } else {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: another block's shared memory is mapped only by cluster_shared_scope::map(), after "
                    "the cluster barrier that shows every block has started");
    }
  }
  /// As the template above, for a copy of a const view.
  __device__ remote_shared(remote_shared const& other) noexcept  // NOLINT: exists to reject with a message
  {
    static_cast<void>(other);
    static_assert(detail::dependent_false<T>,
                  "umsync: a remote_shared view cannot be copied or stored: it is valid only inside the "
                  "cluster_shared_scope that mapped it");
  }
  remote_shared& operator=(remote_shared const&) = delete;

  __device__ T& operator[](std::size_t i) const noexcept { return data_[i]; }
  __device__ T& operator*() const noexcept { return *data_; }
  __device__ T* operator->() const noexcept { return data_; }
  /// The mapped address. What is done with it is beyond the scope's guarantees.
  __device__ T* data() const noexcept { return data_; }
  /// The rank of the block whose shared memory this is.
  __device__ std::uint32_t rank() const noexcept { return rank_; }

 private:
  __device__ remote_shared(detail::cluster_key, T* data, std::uint32_t rank) noexcept : data_(data), rank_(rank) {}
  friend class cluster_shared_scope;
  T* data_;
  std::uint32_t rank_;
};

/// A stretch of a kernel in which the blocks of a cluster read and write each other's shared
/// memory. It opens with a cluster barrier (every block has started; writes before it are
/// visible after it) and its destructor runs the closing one, so no block leaves the scope, or
/// returns from the kernel, while another may still access its shared memory. Every thread of
/// every block of the cluster opens and closes the same scopes.
class cluster_shared_scope {
 public:
  /// Opens with its own barrier (cluster::sync()).
  __device__ cluster_shared_scope() noexcept
  {
    check_launch();
    static_cast<void>(cluster::sync());
  }
  /// Opens on a barrier the thread has just passed: cluster_shared_scope(arrival.wait()). By
  /// value: only the barrier call's own result initialises it, never a proof kept in a variable.
  __device__ explicit cluster_shared_scope(cluster_barrier_passed opened) noexcept
  {
    static_cast<void>(opened);
    check_launch();
  }
  cluster_shared_scope(cluster_shared_scope const&) = delete;
  cluster_shared_scope& operator=(cluster_shared_scope const&) = delete;
  /// The closing barrier (arrive release, wait acquire): accesses of other blocks' shared
  /// memory made in the scope are complete, and visible to the owners, after it.
  __device__ ~cluster_shared_scope() { static_cast<void>(cluster::sync()); }

  /// `local` is the address of a variable in the caller's own shared memory; the view is the
  /// same variable in the block of rank `rank` (0..cluster::block_count()-1). UMSYNC_DEBUG
  /// builds trap on a rank out of range and on an address outside shared memory.
  template <class T>
  __device__ remote_shared<T> map(T* local, std::uint32_t rank) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (rank >= detail::cluster_block_count()) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: cluster_shared_scope::map: rank %u is out of range in block (%u,%u,%u) thread "
                    "(%u,%u,%u); the cluster has %u blocks (ranks 0..%u)\n",
                    rank, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
                    detail::cluster_block_count(), detail::cluster_block_count() - 1U);
      }
      detail::cluster_trap(prints);
    }
    if (__isShared(local) == 0U) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: cluster_shared_scope::map: the address %p is not in the calling block's shared "
                    "memory (block (%u,%u,%u) thread (%u,%u,%u))\n",
                    static_cast<void const*>(local), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y,
                    threadIdx.z);
      }
      detail::cluster_trap(prints);
    }
#endif
    void* const mapped = __cluster_map_shared_rank(local, rank);
    return remote_shared<T>(detail::cluster_key{}, static_cast<T*>(mapped), rank);
  }

 private:
  __device__ static void check_launch() noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (!cluster::launched_as_cluster()) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: cluster_shared_scope in a kernel launched without a cluster shape (block (%u,%u,%u) "
                    "thread (%u,%u,%u)); launch it with a cluster dimension (__cluster_dims__ or the launch "
                    "attribute)\n",
                    blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z);
      }
      detail::cluster_trap(prints);
    }
#endif
  }
};

UMSYNC_NAMESPACE_END
