// umsync/sync/pipeline_stage.hpp: the handles of a pipeline's stages: empty_stage (acquired by the
// producer: its one use is fill()) and full_stage (waited by a consumer: read, then released
// once). Usage: pipeline.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/bulk_copy.hpp>
#include <umsync/sync/detail/pipeline_checks.hpp>
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

UMSYNC_NAMESPACE_END
