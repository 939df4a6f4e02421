// umsync/sync/signal.hpp: flags, monotonic counters and exact values over cuda::atomic_ref,
// with release on post and acquire on wait, and a scope that covers the memory they live in.
//
//   // blocks of one grid, device memory: device scope by default
//   umsync::flag<umsync::device_global> ready{flag_word};
//   if (producer) { write(data); ready.post(); }        // release
//   else          { ready.wait(); read(data); }          // acquire
//
//   // host <-> device through pinned or managed memory: system scope is required
//   umsync::counter<umsync::system_visible> done{counter_word};
//   done.add(1);                                         // device
//   done.wait_at_least(n_blocks);                        // host or device
//
// Memory kinds (the type says where the word lives, the scope follows from it):
//   block_shared   __shared__ memory: any scope from block up.
//   device_global  cudaMalloc / pool memory seen by this GPU only: device or system scope; block
//                  scope is rejected (other blocks would not be ordered by it).
//   system_visible pinned host, managed or peer-mapped memory: system scope only; the host or
//                  another GPU reads it.
//
// Pinned host memory takes loads and stores from the device, but a read-modify-write atomic
// (counter::add) on it needs host native atomics (cudaDevAttrHostNativeAtomicSupported), which
// PCIe-attached GPUs such as an H200 on PCIe lack: compute-sanitizer memcheck reports such an
// atomic as invalid. Put counters the device adds to in managed or device memory; flags and
// exact values (stores only) work in pinned memory.
//
// A monotonic counter only ever grows, so it waits for "at least": a wait for an exact value
// would hang as soon as the counter overshoots it. Exact waits exist, as a different type
// (exact_value) for words that are stored, not incremented.
//
// Every wait spins with __nanosleep backoff; each also has a bounded form taking a wait_budget
// (bounded_wait.hpp) that traps with a diagnostic instead of hanging.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/sync/bounded_wait.hpp>

#include <cuda/atomic>

#include <chrono>
#include <cstdint>
#include <thread>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// __shared__ memory of one block.
struct block_shared {
  static constexpr cuda::thread_scope default_scope = cuda::thread_scope_block;
};
/// Global memory of this GPU (cudaMalloc, pools), shared by the blocks of the grid(s).
struct device_global {
  static constexpr cuda::thread_scope default_scope = cuda::thread_scope_device;
};
/// Memory the host or another GPU also touches: pinned host memory, managed memory, peer-mapped
/// memory.
struct system_visible {
  static constexpr cuda::thread_scope default_scope = cuda::thread_scope_system;
};

namespace detail {

template <class Kind, cuda::thread_scope Scope>
struct scope_covers_memory {
  static_assert(std::is_same_v<Kind, block_shared> || std::is_same_v<Kind, device_global> ||
                    std::is_same_v<Kind, system_visible>,
                "umsync: the memory kind of a signal is block_shared, device_global or system_visible");
  static_assert(!std::is_same_v<Kind, system_visible> || Scope == cuda::thread_scope_system,
                "umsync: memory the host or another GPU sees (system_visible) needs cuda::thread_scope_system");
  static_assert(!std::is_same_v<Kind, device_global> || Scope != cuda::thread_scope_block,
                "umsync: block scope does not order global memory between blocks; use device or system scope");
  static_assert(Scope != cuda::thread_scope_thread, "umsync: thread scope cannot order two threads");
};

/// The atomic word shared by flag, counter and exact_value.
template <class T, class Kind, cuda::thread_scope Scope>
class signal_word : scope_covers_memory<Kind, Scope> {
  static_assert(std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>,
                "umsync: signal words are std::uint32_t or std::uint64_t");

 public:
  using value_type = T;
  using memory_kind = Kind;
  static constexpr cuda::thread_scope scope = Scope;

  __host__ __device__ explicit signal_word(T* word) noexcept : word_(word) {}

  [[nodiscard]] __host__ __device__ T* get() const noexcept { return word_; }

  /// The current value, with acquire: what was written before the post that stored it is
  /// visible after this load.
  [[nodiscard]] __host__ __device__ T load() const noexcept { return ref().load(cuda::std::memory_order_acquire); }

 protected:
  __host__ __device__ cuda::atomic_ref<T, Scope> ref() const noexcept { return cuda::atomic_ref<T, Scope>(*word_); }

  /// Host-side wait with a deadline: polls with acquire loads, false on timeout.
  template <class Satisfied, class Rep, class Period>
  __host__ bool host_wait_for(Satisfied satisfied, std::chrono::duration<Rep, Period> timeout) const
  {
    auto const deadline = std::chrono::steady_clock::now() + timeout;
    while (!satisfied(load())) {
      if (std::chrono::steady_clock::now() >= deadline) {
        return satisfied(load());
      }
      std::this_thread::yield();
    }
    return true;
  }

 private:
  T* word_;
};

}  // namespace detail

/// A one-shot flag: 0 until posted, then 1. reset() rearms it once every waiter is done.
template <class Kind, cuda::thread_scope Scope = Kind::default_scope>
class flag : public detail::signal_word<std::uint32_t, Kind, Scope> {
  using base = detail::signal_word<std::uint32_t, Kind, Scope>;

 public:
  using base::base;

  /// Sets the flag; everything the caller wrote before is visible to a thread whose wait sees it.
  __host__ __device__ void post() const noexcept { this->ref().store(1U, cuda::std::memory_order_release); }
  [[nodiscard]] __host__ __device__ bool is_set() const noexcept { return this->load() != 0U; }
  /// Rearms the flag (relaxed: order it after the waiters with a barrier or a stream edge).
  __host__ __device__ void reset() const noexcept { this->ref().store(0U, cuda::std::memory_order_relaxed); }

  /// Waits until the flag is set.
  __device__ void wait() const noexcept
  {
    detail::spin_until([this] { return this->load(); }, [](std::uint32_t v) { return v != 0U; });
  }
  /// Waits until the flag is set or the budget is spent (then reports and traps).
  __device__ void wait(wait_budget const& budget) const noexcept
  {
    detail::spin_until([this] { return this->load(); }, [](std::uint32_t v) { return v != 0U; }, budget,
                       wait_condition::flag_set, 1U);
  }
  /// Host: waits until the flag is set; false when `timeout` passes first.
  template <class Rep, class Period>
  [[nodiscard]] __host__ bool wait_for(std::chrono::duration<Rep, Period> timeout) const
  {
    return this->host_wait_for([](std::uint32_t v) { return v != 0U; }, timeout);
  }
};

/// A counter that only grows (events done, tiles produced); waits are "at least".
template <class Kind, cuda::thread_scope Scope = Kind::default_scope, class T = std::uint64_t>
class counter : public detail::signal_word<T, Kind, Scope> {
  using base = detail::signal_word<T, Kind, Scope>;

 public:
  using base::base;

  /// Adds `n` with release; returns the value before.
  __host__ __device__ T add(T n = 1) const noexcept
  {
    return this->ref().fetch_add(n, cuda::std::memory_order_release);
  }

  /// Waits until the counter is `target` or more; returns the value seen.
  __device__ T wait_at_least(T target) const noexcept
  {
    return detail::spin_until([this] { return this->load(); }, [target](T v) { return v >= target; });
  }
  __device__ T wait_at_least(T target, wait_budget const& budget) const noexcept
  {
    return detail::spin_until([this] { return this->load(); }, [target](T v) { return v >= target; }, budget,
                              wait_condition::at_least, static_cast<std::uint64_t>(target));
  }
  template <class Rep, class Period>
  [[nodiscard]] __host__ bool wait_for_at_least(T target, std::chrono::duration<Rep, Period> timeout) const
  {
    return this->host_wait_for([target](T v) { return v >= target; }, timeout);
  }

  /// Not available: a counter that overshoots `value` would never equal it again.
  template <class... Args>
  __host__ __device__ void wait_equal(Args&&...) const noexcept
  {
    static_assert(detail::dependent_false<Args...>,
                  "umsync: a monotonic counter waits with wait_at_least() only; an equality wait hangs once the "
                  "counter overshoots (use umsync::exact_value for values that are stored, not counted)");
  }
};

/// A word that is stored, not incremented (a phase, a state): waits for an exact value. Every
/// value a waiter waits for must stay until that waiter has seen it.
template <class Kind, cuda::thread_scope Scope = Kind::default_scope, class T = std::uint64_t>
class exact_value : public detail::signal_word<T, Kind, Scope> {
  using base = detail::signal_word<T, Kind, Scope>;

 public:
  using base::base;

  /// Stores `value` with release.
  __host__ __device__ void store(T value) const noexcept { this->ref().store(value, cuda::std::memory_order_release); }

  __device__ void wait_equal(T value) const noexcept
  {
    detail::spin_until([this] { return this->load(); }, [value](T v) { return v == value; });
  }
  __device__ void wait_equal(T value, wait_budget const& budget) const noexcept
  {
    detail::spin_until([this] { return this->load(); }, [value](T v) { return v == value; }, budget,
                       wait_condition::equal_to, static_cast<std::uint64_t>(value));
  }
  template <class Rep, class Period>
  [[nodiscard]] __host__ bool wait_for_equal(T value, std::chrono::duration<Rep, Period> timeout) const
  {
    return this->host_wait_for([value](T v) { return v == value; }, timeout);
  }
};

UMSYNC_NAMESPACE_END
