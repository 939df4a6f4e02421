// umsync/sync/barrier_phase.hpp: the phase a thread waits for next on a transaction barrier
// (barrier_phase), or on each barrier of a set (barrier_phases): made only by publish(), advanced
// only by a wait, never copied or made from a parity bit. Usage: transaction_barrier.hpp.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/transaction_barrier_storage.hpp>

#include <cstddef>
#include <cstdint>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

template <barrier_scope Scope>
class transaction_barrier;
template <barrier_scope Scope, std::size_t Count>
class transaction_barriers;
template <barrier_scope Scope, std::size_t Count>
class unpublished_barriers;

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

UMSYNC_NAMESPACE_END
