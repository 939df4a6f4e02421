// umsync/sync/pipeline.hpp: a staged producer/consumer pipeline on transaction barriers (sm_90),
// for warp-specialized kernels: the producer acquires an empty stage and fills it by bulk copy,
// the consumers wait for it full, read it and release it. Each stage has a full barrier (one
// arrival: the fill's, with expect_tx of its bytes) and an empty barrier (one arrival per consumer
// thread), as CUTLASS's PipelineTmaAsync has; the phases are the thread's barrier_phases.
//
//   __shared__ umsync::pipeline_storage<float, 2048, 4> storage;        // 4 stages of 8 KiB
//   auto [pipe, phases] = umsync::init_pipeline<0x1, 0x1E>(storage).publish();  // every thread
//   if (warp == 0) {                                                   // the producer warp
//     if (lane == 0) {
//       auto producer = pipe.producer(std::move(phases));
//       for (unsigned k = 0; k < tiles; ++k) {
//         producer.acquire(k % 4).fill(in + k * 2048);                 // waits empty, then TMA
//       }
//     }
//   } else {                                                           // warps 1..4 consume
//     auto consumer = pipe.consumer(std::move(phases));
//     for (unsigned k = 0; k < tiles; ++k) {
//       auto stage = consumer.wait(k % 4);                             // full_stage: readable
//       out[k * 2048 + i] = f(stage[i]);
//       std::move(stage).release();                                    // fence, arrive on empty
//     }
//   }
//
// The types: an acquired stage (empty_stage) can only be filled, a waited one (full_stage) only
// read and released; both are move-only and nodiscard, and each is consumed by its last step, so
// a stage used before its wait, a dropped stage and a copy released twice do not compile. Stage
// indices and phases are run-time values. UMSYNC_DEBUG builds trap, with a message, on a stage
// index out of range, a role's operation from a warp outside its mask, a stage released twice or
// destroyed unreleased (or unfilled), and a wait that does not complete (transaction_barrier.hpp).
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

/// Shared memory of a pipeline of `Stages` tiles of N elements of T: declare it __shared__.
/// barriers[s] is stage s's full barrier, barriers[Stages + s] its empty barrier.
template <class T, std::size_t N, std::size_t Stages>
struct pipeline_storage {
  static_assert(Stages >= 1 && Stages <= 16,
                "umsync: a pipeline has 1 to 16 stages (a full and an empty barrier each, at most 32 barriers)");
  static constexpr std::size_t stages = Stages;
  transaction_barrier_storage<barrier_scope::block> barriers[2 * Stages];
  shared_tile<T, N> tiles[Stages];
};

template <class T, std::size_t N, std::size_t Stages, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
class pipeline;

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

// nodiscard on the stage types, not only on acquire() and wait(): a stage returned through the
// caller's own function cannot be dropped either.
template <class T, std::size_t N>
class [[nodiscard("umsync: an acquired pipeline stage must be filled (fill()), or the consumers wait for it "
                  "forever")]] empty_stage;
template <class T, std::size_t N>
class [[nodiscard("umsync: a waited pipeline stage must be released (release()) once it is read, or the producer "
                  "never refills it")]] full_stage;

namespace detail {
template <class Stage>
inline constexpr bool is_full_stage = false;
template <class T, std::size_t N>
inline constexpr bool is_full_stage<full_stage<T, N>> = true;
template <class Stage>
inline constexpr bool is_empty_stage = false;
template <class T, std::size_t N>
inline constexpr bool is_empty_stage<empty_stage<T, N>> = true;
}  // namespace detail

/// A stage the producer acquired: empty, so its one use is fill(), which issues the bulk copy
/// and the full barrier's arrive.expect_tx of its bytes. Its elements are not reachable.
template <class T, std::size_t N>
class empty_stage {
 public:
  empty_stage(empty_stage const&) = delete;
  empty_stage& operator=(empty_stage const&) = delete;
  /// Declared only so that reassigning an acquired stage, above all from a waited (full) one,
  /// fails with the rule's message.
  template <class Other>
  __device__ void operator=(Other&&) noexcept  // void: the rejection is the only error
  {
    detail::reject_stage_reassignment<detail::is_full_stage<std::remove_cvref_t<Other>>, Other>();
  }
  /// Declared only so that turning a waited (full) stage into an acquired one fails with the
  /// rule's message.
  template <class Other, std::enable_if_t<detail::is_full_stage<std::remove_cvref_t<Other>>, int> = 0>
  __device__ empty_stage(Other&&) noexcept  // NOLINT: exists to reject with a message
      : empty_stage(detail::reject_stage_conversion<empty_stage, Other>())
  {}
  __device__ empty_stage(empty_stage&& other) noexcept
      : tile_(std::move(other.tile_)), full_(other.full_), stage_(other.stage_)
  {
#if defined(UMSYNC_DEBUG)
    filled_ = other.filled_;
    other.filled_ = true;
    other.moved_ = true;
#endif
  }
#if defined(UMSYNC_DEBUG)
  __device__ ~empty_stage()
  {
    if (!filled_) {
      detail::report_pipeline_stage("acquired and destroyed without fill()", stage_,
                                    "the consumers would wait for it forever");
    }
  }
#endif

  /// Fills the whole stage from `source` (N elements; the byte count an immediate).
  __device__ void fill(T const* source) && noexcept
  {
    mark_filled();
    bulk_fill(full_).load(std::move(tile_), source).arrive();
  }

  /// Fills the first `count` elements (a last, partial tile; debug builds check the 16-byte rule).
  __device__ void fill(T const* source, std::size_t count) && noexcept
  {
    mark_filled();
    bulk_fill(full_).load(std::move(tile_), source, count).arrive();
  }

  /// The stage's index (0 .. Stages - 1).
  __device__ unsigned index() const noexcept { return stage_; }

  /// Declared only so that reading an empty stage fails with the rule's message.
  template <class Index>
  __device__ T const& operator[](Index i) const noexcept
  {
    static_assert(detail::dependent_false<Index>,
                  "umsync: a pipeline stage is read only after the consumer's wait() returned it full: an acquired "
                  "(empty) stage belongs to the bulk copy that fills it");
    return detail::tile_access::data(tile_)[i];
  }
  /// Declared only so that releasing an empty stage fails with the rule's message.
  template <class... Args>
  __device__ void release(Args&&...) && noexcept
  {
    static_assert(detail::dependent_false<Args...>,
                  "umsync: only a full stage is released, by the consumer that waited for it; the producer's "
                  "acquired stage is filled (fill())");
  }

  /// The one real constructor (pipeline_producer::acquire()).
  __device__ empty_stage(detail::pipeline_key, tile<T, N, tile_state::empty>&& view,
                         transaction_barrier<barrier_scope::block> full, unsigned stage) noexcept
      : tile_(std::move(view)), full_(full), stage_(stage)
  {}

 private:
  /// UMSYNC_DEBUG: a second fill (through the same handle, or a moved-from one) traps: its
  /// arrival would complete the next round's full phase early.
  __device__ void mark_filled() noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (filled_) {
      detail::report_pipeline_stage(moved_ ? "filled through a moved-from handle" : "filled twice", stage_,
                                    "each acquire() is filled once; a second fill arrives on the full barrier again "
                                    "and completes the next round's phase early");
    }
    filled_ = true;
#endif
  }
  tile<T, N, tile_state::empty> tile_;
  transaction_barrier<barrier_scope::block> full_;
  unsigned stage_;
#if defined(UMSYNC_DEBUG)
  bool filled_ = false;
  bool moved_ = false;
#endif
};

/// A stage the consumer waited for: full and visible to generic code, read-only. Its last use is
/// release(): fence.proxy.async.shared::cta, then this thread's arrival on the empty barrier, so
/// the refill cannot overtake the reads (tile::release, deepseek-ai/DeepEP #642).
template <class T, std::size_t N>
class full_stage {
 public:
  static constexpr std::size_t size = N;

  /// Declared only so that a copy (to release twice) fails with the rule's message.
  __device__ full_stage(full_stage const& other) noexcept  // NOLINT: exists to reject with a message
      : tile_(std::move(const_cast<full_stage&>(other).tile_)), empty_(other.empty_), stage_(other.stage_)
  {
    static_assert(detail::dependent_false<T>,
                  "umsync: a pipeline stage handle cannot be copied: each stage is released once; move it "
                  "(std::move) into release()");
  }
  full_stage& operator=(full_stage const&) = delete;
  /// Declared only so that reassigning a waited stage, above all with an acquired (refill) one,
  /// fails with the rule's message.
  template <class Other>
  __device__ void operator=(Other&&) noexcept  // void: the rejection is the only error
  {
    detail::reject_stage_reassignment<detail::is_empty_stage<std::remove_cvref_t<Other>>, Other>();
  }
  /// Declared only so that making a waited stage from an acquired one fails with the rule's message.
  template <class Other, std::enable_if_t<detail::is_empty_stage<std::remove_cvref_t<Other>>, int> = 0>
  __device__ full_stage(Other&&) noexcept  // NOLINT: exists to reject with a message
      : full_stage(detail::reject_stage_conversion<full_stage, Other>())
  {}
  __device__ full_stage(full_stage&& other) noexcept
      : tile_(std::move(other.tile_)), empty_(other.empty_), stage_(other.stage_)
  {
#if defined(UMSYNC_DEBUG)
    consumers_ = other.consumers_;  // the moved-to handle is released by the same consumer warps
    released_ = other.released_;
    other.released_ = true;
    other.moved_ = true;
#endif
  }
#if defined(UMSYNC_DEBUG)
  __device__ ~full_stage()
  {
    if (!released_) {
      detail::report_pipeline_stage("destroyed without release()", stage_,
                                    "every consumer thread releases every stage it waited for, or the producer "
                                    "never refills it");
    }
  }
#endif

  /// The elements, read-only: generic code reads what the bulk copy delivered. Only between the
  /// wait and release(): a read after release() (or through a moved-from handle) may see the
  /// refill. The types cannot refuse it (a moved-from name stays in scope); UMSYNC_DEBUG builds
  /// trap.
  template <class Index>
  __device__ T const& operator[](Index i) const noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (released_) {
      detail::report_pipeline_stage(moved_ ? "read through a moved-from handle" : "read after release()", stage_,
                                    "a stage is read only between its wait() and its release(); after the release "
                                    "the producer may already be refilling it");
    }
#endif
    return tile_[i];
  }

  /// The stage's index (0 .. Stages - 1).
  __device__ unsigned index() const noexcept { return stage_; }

  /// Gives the stage back to the producer: every consumer thread calls it once per wait.
  __device__ void release() && noexcept
  {
#if defined(UMSYNC_DEBUG)
    if (released_) {
      detail::report_pipeline_stage(moved_ ? "released through a moved-from handle" : "released twice", stage_,
                                    "each wait() is released once; a second arrival would complete the next "
                                    "round's empty phase early");
    }
    released_ = true;
    detail::check_pipeline_role(consumers_, "consumer", "release()");
#endif
    static_cast<void>(std::move(tile_).release(detail::empty_arrival{empty_}));
  }

  /// Declared only so that refilling a full stage fails with the rule's message.
  template <class... Args>
  __device__ void fill(Args&&...) && noexcept
  {
    static_assert(detail::dependent_false<Args...>,
                  "umsync: a full stage is released by the consumer (release()); the producer refills it after "
                  "acquire() has seen the release");
  }

  /// The one real constructor (pipeline_consumer::wait()).
  __device__ full_stage(detail::pipeline_key, tile<T, N, tile_state::generic_read>&& view,
                        transaction_barrier<barrier_scope::block> empty, unsigned stage, warp_mask_t consumers) noexcept
      : tile_(std::move(view)), empty_(empty), stage_(stage)
  {
    static_cast<void>(consumers);
#if defined(UMSYNC_DEBUG)
    consumers_ = consumers;
#endif
  }

 private:
  tile<T, N, tile_state::generic_read> tile_;
  transaction_barrier<barrier_scope::block> empty_;
  unsigned stage_;
#if defined(UMSYNC_DEBUG)
  warp_mask_t consumers_ = 0;
  bool released_ = false;
  bool moved_ = false;
#endif
};

/// The producing thread's side of a pipeline (one thread of the producer warps): it holds that
/// thread's phases of the empty barriers.
template <class T, std::size_t N, std::size_t Stages, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
class pipeline_producer {
 public:
  pipeline_producer(pipeline_producer const&) = delete;
  pipeline_producer& operator=(pipeline_producer const&) = delete;
  pipeline_producer(pipeline_producer&&) noexcept = default;
  pipeline_producer& operator=(pipeline_producer&&) noexcept = default;

  /// Waits until the consumers released stage `stage` (every stage starts released), and hands
  /// it out empty.
  [[nodiscard("umsync: an acquired pipeline stage must be filled (fill()), or the consumers wait for it "
              "forever")]] __device__ empty_stage<T, N>
  acquire(std::size_t stage) noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_pipeline_stage(stage, Stages, "acquire()");
    detail::check_pipeline_role(ProducerWarps, "producer", "acquire()");
#endif
    barriers_.wait(Stages + stage, phases_);
    return empty_stage<T, N>(detail::pipeline_access::key(),
                             detail::tile_access::make<T, N, tile_state::empty>(storage_->tiles[stage].elements),
                             barriers_[stage], static_cast<unsigned>(stage));
  }

  /// Declared only so that the producer waiting for a full stage fails with the rule's message.
  template <class... Args>
  __device__ void wait(Args&&...) noexcept
  {
    static_assert(detail::dependent_false<Args...>,
                  "umsync: the pipeline's producer acquires empty stages (acquire()); only a consumer waits for a "
                  "full one");
  }

  /// The one real constructor (pipeline::producer()).
  __device__ pipeline_producer(detail::pipeline_key, pipeline_storage<T, N, Stages>* storage,
                               transaction_barriers<barrier_scope::block, 2 * Stages> barriers,
                               barrier_phases<2 * Stages>&& phases) noexcept
      : storage_(storage), barriers_(barriers), phases_(std::move(phases))
  {}

 private:
  pipeline_storage<T, N, Stages>* storage_;
  transaction_barriers<barrier_scope::block, 2 * Stages> barriers_;
  barrier_phases<2 * Stages> phases_;
};

/// A consuming thread's side of a pipeline (every thread of the consumer warps): it holds that
/// thread's phases of the full barriers.
template <class T, std::size_t N, std::size_t Stages, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
class pipeline_consumer {
 public:
  pipeline_consumer(pipeline_consumer const&) = delete;
  pipeline_consumer& operator=(pipeline_consumer const&) = delete;
  pipeline_consumer(pipeline_consumer&&) noexcept = default;
  pipeline_consumer& operator=(pipeline_consumer&&) noexcept = default;

  /// Waits until stage `stage` is full (its fill's bytes arrived) and hands it out readable.
  [[nodiscard("umsync: a waited pipeline stage must be released (release()) once it is read, or the producer never "
              "refills it")]] __device__ full_stage<T, N>
  wait(std::size_t stage) noexcept
  {
#if defined(UMSYNC_DEBUG)
    detail::check_pipeline_stage(stage, Stages, "wait()");
    detail::check_pipeline_role(ConsumerWarps, "consumer", "wait()");
#endif
    auto loaded = barriers_.wait(stage, phases_, storage_->tiles[stage]);
    return full_stage<T, N>(detail::pipeline_access::key(), std::move(loaded).read(), barriers_[Stages + stage],
                            static_cast<unsigned>(stage), ConsumerWarps);
  }

  /// Declared only so that a consumer acquiring a stage fails with the rule's message.
  template <class... Args>
  __device__ void acquire(Args&&...) noexcept
  {
    static_assert(detail::dependent_false<Args...>,
                  "umsync: only the pipeline's producer acquires a stage; a consumer waits for it full (wait())");
  }

  /// The one real constructor (pipeline::consumer()).
  __device__ pipeline_consumer(detail::pipeline_key, pipeline_storage<T, N, Stages>* storage,
                               transaction_barriers<barrier_scope::block, 2 * Stages> barriers,
                               barrier_phases<2 * Stages>&& phases) noexcept
      : storage_(storage), barriers_(barriers), phases_(std::move(phases))
  {}

 private:
  pipeline_storage<T, N, Stages>* storage_;
  transaction_barriers<barrier_scope::block, 2 * Stages> barriers_;
  barrier_phases<2 * Stages> phases_;
};

/// A published pipeline: what every thread holds after publish(). Each thread turns its phases
/// into one role: producer() (one thread of the producer warps) or consumer() (every thread of
/// the consumer warps).
template <class T, std::size_t N, std::size_t Stages, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
class pipeline {
  static_assert(ProducerWarps != 0 && ConsumerWarps != 0,
                "umsync: a pipeline needs at least one producer warp and one consumer warp");
  static_assert((ProducerWarps & ConsumerWarps) == 0, "umsync: a warp cannot be both producer and consumer of a "
                                                      "pipeline");

 public:
  static constexpr std::size_t stages = Stages;
  static constexpr warp_mask_t producer_warps = ProducerWarps;
  static constexpr warp_mask_t consumer_warps = ConsumerWarps;
  /// Arrivals that complete an empty phase: one per consumer thread.
  static constexpr unsigned consumer_threads = 32U * detail::popcount32(ConsumerWarps);

  using producer_type = pipeline_producer<T, N, Stages, ProducerWarps, ConsumerWarps>;
  using consumer_type = pipeline_consumer<T, N, Stages, ProducerWarps, ConsumerWarps>;

  [[nodiscard("umsync: the producer role holds the thread's phases; keep it")]] __device__ producer_type producer(
      barrier_phases<2 * Stages>&& phases) const noexcept
  {
    return producer_type(detail::pipeline_access::key(), storage_, barriers_, std::move(phases));
  }

  [[nodiscard("umsync: the consumer role holds the thread's phases; keep it")]] __device__ consumer_type consumer(
      barrier_phases<2 * Stages>&& phases) const noexcept
  {
    return consumer_type(detail::pipeline_access::key(), storage_, barriers_, std::move(phases));
  }

  /// The one real constructor (unpublished_pipeline::publish()).
  __device__ pipeline(detail::pipeline_key, pipeline_storage<T, N, Stages>* storage,
                      transaction_barriers<barrier_scope::block, 2 * Stages> barriers) noexcept
      : storage_(storage), barriers_(barriers)
  {}

 private:
  pipeline_storage<T, N, Stages>* storage_;
  transaction_barriers<barrier_scope::block, 2 * Stages> barriers_;
};

/// A pipeline whose barriers are initialised in the initialising thread but not yet published;
/// its one use is publish().
template <class T, std::size_t N, std::size_t Stages, warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps>
class unpublished_pipeline {
 public:
  using pipeline_type = pipeline<T, N, Stages, ProducerWarps, ConsumerWarps>;

  /// Every thread of the block calls it: fence.mbarrier_init and __syncthreads() (the barriers'
  /// publish()); returns {pipeline, phases}, the phases of all 2 * Stages barriers for this thread.
  [[nodiscard("umsync: publish() returns the pipeline and the thread's phases; keep them")]] __device__ auto
  publish() && noexcept
  {
#if defined(UMSYNC_DEBUG)
    constexpr unsigned needed = 32U * (detail::highest_bit(ProducerWarps | ConsumerWarps) + 1U);
    unsigned const threads = blockDim.x * blockDim.y * blockDim.z;
    if (threads < needed) {
      bool const prints = detail::cluster_trap_prints();
      if (prints) {
        std::printf("umsync: a pipeline whose warp masks (producers 0x%08x, consumers 0x%08x) need %u threads runs "
                    "in block (%u,%u,%u) of %u threads\n",
                    ProducerWarps, ConsumerWarps, needed, blockIdx.x, blockIdx.y, blockIdx.z, threads);
      }
      detail::cluster_trap(prints);
    }
#endif
    auto [barriers, phases] = unpublished_barriers<barrier_scope::block, 2 * Stages>(detail::transaction_access::key(),
                                                                                     storage_->barriers)
                                  .publish();
    return published_barriers<pipeline_type, barrier_phases<2 * Stages>>{pipeline_type(detail::pipeline_access::key(),
                                                                                       storage_, barriers),
                                                                         std::move(phases)};
  }

  /// The one real constructor (init_pipeline()).
  __device__ unpublished_pipeline(detail::pipeline_key, pipeline_storage<T, N, Stages>* storage) noexcept
      : storage_(storage)
  {}

 private:
  pipeline_storage<T, N, Stages>* storage_;
};

/// Initialises a pipeline whose producer runs in `ProducerWarps` and whose consumers are every
/// thread of `ConsumerWarps`. Called by every thread of the block; thread (0,0,0) initialises
/// each full barrier for one arrival and each empty barrier for one per consumer thread, and
/// arrives on every empty barrier for all of them once: each stage starts released, so the
/// producer's first acquire of it returns at once (CUTLASS starts the producer's phase at 1
/// instead; a barrier_phase starts at 0 by construction).
template <warp_mask_t ProducerWarps, warp_mask_t ConsumerWarps, class T, std::size_t N, std::size_t Stages>
[[nodiscard(
    "umsync: an initialised pipeline is used only after publish(): keep the result and call publish()")]] __device__
    unpublished_pipeline<T, N, Stages, ProducerWarps, ConsumerWarps>
    init_pipeline(pipeline_storage<T, N, Stages>& storage) noexcept
{
  // A local: cuda::ptx takes the count by reference, which would odr-use the host constant.
  std::uint32_t const consumers = pipeline<T, N, Stages, ProducerWarps, ConsumerWarps>::consumer_threads;
  if (detail::initializing_thread()) {
    for (std::size_t s = 0; s < Stages; ++s) {
      detail::init_one(storage.barriers[s], 1);
      detail::init_one(storage.barriers[Stages + s], consumers);
      static_cast<void>(cuda::ptx::mbarrier_arrive(&storage.barriers[Stages + s].word, consumers));
    }
  }
  return unpublished_pipeline<T, N, Stages, ProducerWarps, ConsumerWarps>(detail::pipeline_access::key(), &storage);
}

UMSYNC_NAMESPACE_END
