// umsync/sync/transaction_barrier.hpp: mbarrier objects with a transaction count (sm_90), whose
// scope (block or cluster) is part of their type, usable only once their initialisation is
// fenced and published, and waited through a phase object instead of a parity bit.
//
//   __shared__ umsync::transaction_barrier_storage<umsync::barrier_scope::block> full[2];
//   __shared__ umsync::shared_tile<float, 1024> stage[2];
//   auto [bars, phases] = umsync::init_barriers(full, 1).publish();  // every thread; thread 0 inits
//   if (threadIdx.x == 0) {
//     umsync::bulk_fill(bars[0]).load(stage[0].first_use(), src).arrive();  // bulk_copy.hpp
//   }
//   auto tile = bars.wait(0, phases, stage[0]).read();  // waits phase 0 of barrier 0, flips its parity
//
// init_barriers() returns an unpublished set: its only member is publish(), which issues
// fence.mbarrier_init (the initialising thread) and then a barrier of the set's scope
// (__syncthreads() or a cluster barrier), so no thread and no bulk copy uses an mbarrier before
// its initialisation is visible (PTX ISA, mbarrier.init and fence.mbarrier_init). The phase each
// thread waits for next lives in a barrier_phase (or a barrier_phases for a set), which only
// publish() makes and only a wait advances. Remote arrivals (from another block of the cluster)
// compile only on cluster-scope barriers, whose arrive is release.cluster and whose wait is
// acquire.cluster. UMSYNC_DEBUG builds bound every wait and trap with the barrier, its phase,
// and the bytes it was told to expect against the bytes of the copies issued on it.
//
// The scope and storage live in transaction_barrier_storage.hpp, the phases in barrier_phase.hpp,
// the bounded wait and its debug reports in detail/transaction_wait.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/barrier_phase.hpp>
#include <umsync/sync/cluster.hpp>
#include <umsync/sync/detail/transaction_wait.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/stage_tiles.hpp>
#include <umsync/sync/transaction_barrier_storage.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// A published transaction barrier: a reference to its storage, freely copied within a thread.
template <barrier_scope Scope>
class transaction_barrier {
 public:
  static constexpr barrier_scope scope = Scope;

  /// Arrives (release at Scope): this thread's earlier writes are visible to the threads whose
  /// wait sees the phase complete.
  __device__ void arrive() const noexcept
  {
    static_cast<void>(cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, detail::ptx_scope<Scope>,
                                                 cuda::ptx::space_shared, &storage_->word));
  }

  /// Arrives on the same barrier of the block of rank `rank` in the cluster (release at cluster
  /// scope, mbarrier.arrive.shared::cluster). Only a cluster-scope barrier accepts it.
  template <class Rank>
  __device__ void arrive_remote(Rank rank) const noexcept
  {
    if constexpr (Scope != barrier_scope::cluster) {
      static_assert(detail::dependent_false<Rank>,
                    "umsync: a remote (cluster) arrival needs a cluster-scope transaction barrier "
                    "(barrier_scope::cluster): a block-scope barrier's release and acquire do not order another "
                    "block's writes");
    } else {
      void* const remote = __cluster_map_shared_rank(&storage_->word, static_cast<unsigned>(rank));
      cuda::ptx::mbarrier_arrive(cuda::ptx::sem_release, cuda::ptx::scope_cluster, cuda::ptx::space_cluster,
                                 static_cast<std::uint64_t*>(remote));
    }
  }

  /// Arrives and raises the phase's expected transaction bytes by `bytes` (mbarrier.arrive.
  /// expect_tx), for copies issued apart from a bulk_fill. The copies must deliver exactly this
  /// many bytes: more hangs the phase, fewer completes it early (bulk_fill keeps both in step).
  __device__ void arrive_expect_tx(std::uint32_t bytes) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::note_expected(storage_, bytes);
#endif
    static_cast<void>(cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, detail::ptx_scope<Scope>,
                                                           cuda::ptx::space_shared, &storage_->word, bytes));
  }

  /// Raises the expected transaction bytes without arriving (mbarrier.expect_tx).
  __device__ void expect_tx(std::uint32_t bytes) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::note_expected(storage_, bytes);
#endif
    cuda::ptx::mbarrier_expect_tx(cuda::ptx::sem_relaxed, detail::ptx_scope<Scope>, cuda::ptx::space_shared,
                                  &storage_->word, bytes);
  }

  /// Waits (acquire at Scope) for the phase `phase` names, then advances it to the next one.
  __device__ void wait(barrier_phase& phase) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (phase.owner_ != storage_) {
      detail::report_foreign_phase(phase.owner_, storage_);
    }
    detail::wait_parity(storage_, phase.parity_, phase.number_);
    ++phase.number_;
#else
    detail::wait_parity(storage_, phase.parity_, 0);
#endif
    phase.parity_ ^= 1U;
  }

  /// wait(phase), and the tile the completed phase filled, now visible to generic code.
  template <class T, std::size_t N, class Layout>
  __device__ tile<T, N, tile_state::loaded, Layout> wait(barrier_phase& phase,
                                                         shared_tile<T, N, Layout>& filled) const noexcept
  {
    wait(phase);
    return detail::tile_access::make<T, N, tile_state::loaded, Layout>(filled.elements);
  }

  /// wait(phase) once, and every tile of a stage the completed phase filled (stage_tiles.hpp).
  template <class... Tiles>
    requires(sizeof...(Tiles) >= 2)
  __device__ auto wait(barrier_phase& phase, Tiles&... filled) const noexcept
  {
    wait(phase);
    return detail::loaded_views(filled...);
  }

  /// The storage (for bulk_copy.hpp and for code beyond umsync's types).
  __device__ transaction_barrier_storage<Scope>* storage() const noexcept { return storage_; }

 private:
  __device__ transaction_barrier(detail::transaction_key, transaction_barrier_storage<Scope>* storage) noexcept
      : storage_(storage)
  {}
  template <barrier_scope, std::size_t>
  friend class transaction_barriers;
  template <barrier_scope, std::size_t>
  friend class unpublished_barriers;
  transaction_barrier_storage<Scope>* storage_;
};

/// A published set of Count transaction barriers (one per pipeline stage), indexed at run time.
template <barrier_scope Scope, std::size_t Count>
class transaction_barriers {
 public:
  static constexpr barrier_scope scope = Scope;
  static constexpr std::size_t size = Count;

  __device__ transaction_barrier<Scope> operator[](std::size_t index) const noexcept
  {
    return transaction_barrier<Scope>(detail::transaction_access::key(), storage_ + index);
  }

  /// Waits for the phase of barrier `index` that `phases` names, then advances that phase.
  __device__ void wait(std::size_t index, barrier_phases<Count>& phases) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (index >= Count) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: transaction barrier index %llu is out of range in block (%u,%u,%u) thread (%u,%u,%u); "
                    "the set has %llu barriers\n",
                    static_cast<unsigned long long>(index), blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
                    threadIdx.y, threadIdx.z, static_cast<unsigned long long>(Count));
      }
      detail::cluster_trap(prints);
    }
    detail::wait_parity(storage_ + index, phases.parity(index), phases.numbers_[index]++);
#else
    detail::wait_parity(storage_ + index, phases.parity(index), 0);
#endif
    phases.bits_ ^= 1U << index;
  }

  /// wait(index, phases), and the tile the completed phase filled, now visible to generic code.
  template <class T, std::size_t N, class Layout>
  __device__ tile<T, N, tile_state::loaded, Layout> wait(std::size_t index, barrier_phases<Count>& phases,
                                                         shared_tile<T, N, Layout>& filled) const noexcept
  {
    wait(index, phases);
    return detail::tile_access::make<T, N, tile_state::loaded, Layout>(filled.elements);
  }

  /// wait(index, phases) once, and every tile of the stage the completed phase filled.
  template <class... Tiles>
    requires(sizeof...(Tiles) >= 2)
  __device__ auto wait(std::size_t index, barrier_phases<Count>& phases, Tiles&... filled) const noexcept
  {
    wait(index, phases);
    return detail::loaded_views(filled...);
  }

 private:
  __device__ explicit transaction_barriers(detail::transaction_key,
                                           transaction_barrier_storage<Scope>* storage) noexcept
      : storage_(storage)
  {}
  template <barrier_scope, std::size_t>
  friend class unpublished_barriers;
  transaction_barrier_storage<Scope>* storage_;
};

/// What publish() returns: the barriers and the calling thread's phases (structured bindings:
/// `auto [bar, phase] = ...publish();`).
template <class Barriers, class Phases>
struct published_barriers {
  Barriers barriers;
  Phases phases;
};

/// Barriers whose mbarrier.init has run in the initialising thread but is not yet visible: to
/// the other threads (no barrier yet) nor to the async proxy (no fence.mbarrier_init yet). Its
/// only use is publish(); the members of a published barrier refuse with the rule's message.
template <barrier_scope Scope, std::size_t Count>
class unpublished_barriers {
 public:
  /// Every thread of the block (of every block of the cluster, for cluster scope) calls it: the
  /// initialising thread fences its initialisation (fence.mbarrier_init.release.cluster, the one
  /// form PTX has), then a barrier of the set's scope makes it visible to all.
  [[nodiscard("umsync: publish() returns the usable barriers and the thread's phases; keep them")]] __device__ auto
  publish() && noexcept
  {
    if (detail::initializing_thread()) {
      cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
    }
    if constexpr (Scope == barrier_scope::block) {
      __syncthreads();
    } else {
      static_cast<void>(cluster::sync());
    }
    if constexpr (Count == 1) {
      return published_barriers<transaction_barrier<Scope>, barrier_phase>{
          transaction_barrier<Scope>(detail::transaction_access::key(), storage_),
          barrier_phase(detail::transaction_access::key(), static_cast<void const*>(storage_))};
    } else {
      return published_barriers<transaction_barriers<Scope, Count>, barrier_phases<Count>>{
          transaction_barriers<Scope, Count>(detail::transaction_access::key(), storage_),
          barrier_phases<Count>(detail::transaction_access::key())};
    }
  }

  /// Declared only so that using a barrier before publish() fails with the rule's message.
  template <class... Args>
  __device__ void arrive(Args&&...) const noexcept
  {
    static_assert(detail::dependent_false<Args...>, "umsync: a transaction barrier is used only after publish()");
  }
  template <class... Args>
  __device__ void arrive_expect_tx(Args&&...) const noexcept
  {
    static_assert(detail::dependent_false<Args...>, "umsync: a transaction barrier is used only after publish()");
  }
  template <class... Args>
  __device__ void wait(Args&&...) const noexcept
  {
    static_assert(detail::dependent_false<Args...>, "umsync: a transaction barrier is used only after publish()");
  }

  /// The one real constructor (init_barriers()).
  __device__ unpublished_barriers(detail::transaction_key, transaction_barrier_storage<Scope>* storage) noexcept
      : storage_(storage)
  {}

 private:
  transaction_barrier_storage<Scope>* storage_;
};

namespace detail {
template <barrier_scope Scope>
__device__ void init_one(transaction_barrier_storage<Scope>& storage, std::uint32_t arrivals) noexcept
{
  cuda::ptx::mbarrier_init(&storage.word, arrivals);
#if defined(UMSYNC_DEBUG)
  storage.expected_bytes = 0;
  storage.issued_bytes = 0;
#endif
}
}  // namespace detail

/// Initialises one barrier that completes a phase after `arrivals` arrivals (and every expected
/// byte). Called by every thread of the block; the block's thread (0,0,0) initialises.
template <barrier_scope Scope>
[[nodiscard("umsync: an initialised transaction barrier is used only after publish(): keep the result and call "
            "publish()")]] __device__ unpublished_barriers<Scope, 1>
init_barriers(transaction_barrier_storage<Scope>& storage, std::uint32_t arrivals) noexcept
{
  if (detail::initializing_thread()) {
    detail::init_one(storage, arrivals);
  }
  return unpublished_barriers<Scope, 1>(detail::transaction_access::key(), &storage);
}

/// Initialises a set of N barriers (one per stage), each completing after `arrivals` arrivals.
template <barrier_scope Scope, std::size_t N>
[[nodiscard("umsync: an initialised transaction barrier is used only after publish(): keep the result and call "
            "publish()")]] __device__ unpublished_barriers<Scope, N>
init_barriers(transaction_barrier_storage<Scope> (&storage)[N], std::uint32_t arrivals) noexcept
{
  if (detail::initializing_thread()) {
    for (std::size_t i = 0; i < N; ++i) {
      detail::init_one(storage[i], arrivals);
    }
  }
  return unpublished_barriers<Scope, N>(detail::transaction_access::key(), storage);
}

UMSYNC_NAMESPACE_END
