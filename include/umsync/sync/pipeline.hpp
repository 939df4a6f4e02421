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
#include <umsync/sync/detail/pipeline_checks.hpp>
#include <umsync/sync/named_barrier.hpp>
#include <umsync/sync/pipeline_stage.hpp>
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
