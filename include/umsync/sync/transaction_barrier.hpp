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
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/cluster.hpp>
#include <umsync/sync/proxy.hpp>
#include <umsync/sync/stage_tiles.hpp>

#include <cuda/ptx>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <type_traits>

#if !defined(UMSYNC_TRANSACTION_WAIT_NS)
/// UMSYNC_DEBUG: how long a transaction barrier wait spins before it traps (4 s: long enough for
/// compute-sanitizer's slowdown, short enough to beat a test's time limit).
#  define UMSYNC_TRANSACTION_WAIT_NS 4000000000ULL
#endif

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// The loaded views of a stage's shared tiles, after the wait that completed their phase.
template <class... T, std::size_t... N, class... Layout>
__device__ auto loaded_views(shared_tile<T, N, Layout>&... filled) noexcept
{
  return stage_tiles<tile<T, N, tile_state::loaded, Layout>...>(
      tile_access::make<T, N, tile_state::loaded, Layout>(filled.elements)...);
}

}  // namespace detail

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

/// The phase of one transaction barrier that the holding thread waits for next. Made only by
/// publish() (phase 0), advanced only by a wait; it cannot be copied, so two copies cannot
/// drift apart. A parity bit cannot be passed instead.
class barrier_phase {
 public:
  /// Declared only so that a phase made from a number, or copied, fails with the rule's message.
  template <class... Args>
  __device__ barrier_phase(Args&&...) noexcept  // NOLINT: exists to reject with a message
  {
    if constexpr ((std::is_same_v<std::remove_cvref_t<Args>, barrier_phase> || ...)) {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a barrier_phase cannot be copied: a thread's phase advances only by its own waits, and "
                    "two copies would drift apart; move it (std::move)");
    } else {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a barrier_phase comes only from publish() and advances only by a wait; a phase parity "
                    "cannot be passed");
    }
  }
  /// The copy constructor, deleted, and volatile so that the template above is the better match
  /// for a const phase too.
  barrier_phase(barrier_phase const volatile&) = delete;
  barrier_phase& operator=(barrier_phase const&) = delete;
  barrier_phase(barrier_phase&&) noexcept = default;
  barrier_phase& operator=(barrier_phase&&) noexcept = default;

  /// The parity of the phase waited for next (0 or 1).
  __device__ std::uint32_t parity() const noexcept { return parity_; }

 private:
  __device__ explicit barrier_phase(detail::transaction_key, void const* owner) noexcept : parity_(0)
  {
    static_cast<void>(owner);
#if defined(UMSYNC_DEBUG)
    owner_ = owner;
#endif
  }
  template <barrier_scope>
  friend class transaction_barrier;
  template <barrier_scope, std::size_t>
  friend class unpublished_barriers;
  std::uint32_t parity_;
#if defined(UMSYNC_DEBUG)
  void const* owner_ = nullptr;
  unsigned long long number_ = 0;
#endif
};

/// The phases a thread waits for next on each barrier of a set of Count (at most 32): one parity
/// bit per barrier, so a run-time stage index selects its bit. Made only by publish().
template <std::size_t Count>
class barrier_phases {
  static_assert(Count >= 1 && Count <= 32, "umsync: a transaction barrier set holds 1 to 32 barriers");

 public:
  /// Declared only so that phases made from numbers, or copied, fail with the rule's message.
  template <class... Args>
  __device__ barrier_phases(Args&&...) noexcept  // NOLINT: exists to reject with a message
  {
    if constexpr ((std::is_same_v<std::remove_cvref_t<Args>, barrier_phases> || ...)) {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a barrier_phase cannot be copied: a thread's phase advances only by its own waits, and "
                    "two copies would drift apart; move it (std::move)");
    } else {
      static_assert(detail::dependent_false<Args...>,
                    "umsync: a barrier_phase comes only from publish() and advances only by a wait; a phase parity "
                    "cannot be passed");
    }
  }
  /// As the template above, for a copy of const phases.
  __device__ barrier_phases(barrier_phases const& other) noexcept  // NOLINT: exists to reject with a message
  {
    static_cast<void>(other);
    static_assert(detail::dependent_false<barrier_phases>,
                  "umsync: a barrier_phase cannot be copied: a thread's phase advances only by its own waits, and "
                  "two copies would drift apart; move it (std::move)");
  }
  barrier_phases& operator=(barrier_phases const&) = delete;
  barrier_phases(barrier_phases&&) noexcept = default;
  barrier_phases& operator=(barrier_phases&&) noexcept = default;

  /// The parity of the phase of barrier `index` waited for next.
  __device__ std::uint32_t parity(std::size_t index) const noexcept { return (bits_ >> index) & 1U; }

 private:
  __device__ explicit barrier_phases(detail::transaction_key) noexcept {}
  template <barrier_scope, std::size_t>
  friend class transaction_barriers;
  template <barrier_scope, std::size_t>
  friend class unpublished_barriers;
  std::uint32_t bits_ = 0;
#if defined(UMSYNC_DEBUG)
  unsigned long long numbers_[Count] = {};
#endif
};

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
