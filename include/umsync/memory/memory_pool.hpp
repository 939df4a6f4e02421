// umsync/memory/memory_pool.hpp: stream-ordered memory pools.
//
// `memory_pool` owns a pool (cudaMemPoolCreate) whose release threshold keeps everything by
// default: the device default pool's threshold is 0 (measured on the H200 driver), so it
// hands memory back to the driver at every synchronization and the next allocation pays a
// full cudaMalloc-like cost again. `memory_pool_ref` is a non-owning handle, e.g. of a
// device's default pool.
//
// Both are CCCL memory resources (cuda::mr, resource.hpp) whose memory is device accessible,
// spelled as the CCCL they are compiled with spells them, and only so (resource.hpp's table),
// so a library that takes a resource (RMM, Thrust, CCCL's own containers) can allocate from an
// umsync pool, and no call is stream-ordered or synchronous by the order of its arguments:
//
//   umsync::memory_pool pool;
//   #if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE                 // CCCL 3.1 and later
//   void* p = pool.allocate(stream, bytes, 256);                     // ordered on stream
//   pool.deallocate(stream, p, bytes, 256);
//   void* q = pool.allocate_sync(bytes, 256);                        // usable on any stream at return
//   #else                                                            // CCCL 3.0 (CUDA 13.0's toolkit)
//   void* p = pool.allocate_async(bytes, 256, stream);
//   pool.deallocate_async(p, bytes, 256, stream);
//   void* q = pool.allocate(bytes, 256);
//   #endif
//   umsync::memory_pool_ref handle = pool;
//   umsync::device_resource_ref ref = handle;      // cuda::mr's type-erased reference, to the handle
//
// Code for either CCCL allocates through a device_resource_ref or through a stream_buffer,
// whose calls are spelled once for both (resource.hpp's detail::allocate_from).
//
// Design: the four cuda::mr members are written once, in detail::pool_resource<Derived>, a base
// of both types (CRTP); each spelling exists under the CCCL that defines it and no other. A
// derived type says only which pool it allocates from (pool_to_allocate_from: a moved-from
// memory_pool throws usage_error there); a free needs no pool (cudaFreeAsync), so it cannot
// throw. detail::one_spelling_per_operation below each class is its conformance check, the
// cuda::mr concepts themselves are asserted in resource.hpp (this header leaves them out: they
// are costly to parse, docs/compile-cost.md).
//
// CCCL 3.1's resource_ref refers to copyable resources only, so a reference is made to a
// memory_pool_ref (which must outlive it), not to the move-only memory_pool (docs/resources.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/resource_properties.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// How a pool's cuda::mr allocation (the calls RMM, CCCL and other libraries make) reports a
/// failure: each member throws its own exception for the umsync one it is given. None installed:
/// the umsync exception itself. umsync/rmm.hpp installs RMM's (rmm::out_of_memory, rmm::bad_alloc),
/// at run time and once for the program, so memory_pool_ref has one definition in translation
/// units built with RMM and without.
struct resource_failure_translation {
  void (*out_of_memory)(bad_alloc const&);
  void (*failed)(cuda_error const&);
};
inline atomic_word<resource_failure_translation const*> resource_failures{nullptr};

template <class Failure>
[[noreturn]] void throw_resource_failure(Failure const& failure)
{
  if (resource_failure_translation const* const translation = resource_failures.load()) {
    if constexpr (std::is_same_v<Failure, bad_alloc>) {
      translation->out_of_memory(failure);
    } else {
      translation->failed(failure);
    }
  }
  throw failure;
}

/// The calls behind a pool's cuda::mr members (pool_resource), on a raw pool handle.
struct pool_calls {
  static void check_alignment(std::size_t alignment)
  {
    if (!pool_alignment_ok(alignment)) [[unlikely]] {
      throw invalid_argument("memory_pool_ref::allocate with alignment ", alignment,
                             ": a pool's alignment is a power of two of at most 256 (every pool allocation is "
                             "256-aligned)");
    }
  }
  /// After check_alignment (the arguments are checked before the pool is asked for).
  static void* allocate_on(cudaMemPool_t pool, cudaStream_t stream, std::size_t bytes,
                           std::source_location const& where)
  {
    if (bytes == 0) {
      return nullptr;  // the runtime rejects some zero sizes; nothing to give back later either
    }
    void* memory = nullptr;
    cudaError_t const status = cudaMallocFromPoolAsync(&memory, bytes, pool, stream);
    if (status != cudaSuccess) [[unlikely]] {
      report_failure(pool, status, bytes, where);
    }
    return memory;
  }
  static void free_on(cudaStream_t stream, void* memory, std::source_location const& where) noexcept
  {
    if (memory != nullptr) {
      report_in_destructor(cudaFreeAsync(memory, stream), "cudaFreeAsync (memory_pool_ref::deallocate)", where);
    }
  }
  /// Allocated on the calling thread's default stream, which is then synchronized.
  static void* allocate_synchronized(cudaMemPool_t pool, std::size_t bytes, std::source_location const& where)
  {
    void* const memory = allocate_on(pool, cudaStreamPerThread, bytes, where);
    if (memory == nullptr) {
      return nullptr;  // zero bytes: nothing allocated, nothing to wait for (and no CUDA call)
    }
    cudaError_t const status = cudaStreamSynchronize(cudaStreamPerThread);
    if (status != cudaSuccess) {
      static_cast<void>(cudaFreeAsync(memory, cudaStreamPerThread));  // never handed out: give it back
      throw_resource_failure(cuda_error(status, "cudaStreamSynchronize (memory_pool_ref::allocate_sync)", where));
    }
    return memory;
  }
  static void free_synchronized(void* memory, std::source_location const& where) noexcept
  {
    if (memory == nullptr) {
      return;
    }
    free_on(cudaStreamPerThread, memory, where);
    report_in_destructor(cudaStreamSynchronize(cudaStreamPerThread),
                         "cudaStreamSynchronize (memory_pool_ref::deallocate_sync)", where);
  }

  /// What a bad_alloc says about `pool` (null: the current device's current pool, which
  /// cudaMallocAsync draws from); never throws.
  static fixed_text<96> describe_state(cudaMemPool_t pool) noexcept
  {
    int device = -1;
    std::uint64_t reserved = 0;
    std::uint64_t used = 0;
    if ((pool == nullptr &&
         (cudaGetDevice(&device) != cudaSuccess || cudaDeviceGetMemPool(&pool, device) != cudaSuccess)) ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      return fixed_text<96>("pool state unreadable");
    }
    return compose<96>("pool reserved ", reserved, " B, used ", used, " B");
  }

 private:
  [[noreturn]] static void report_failure(cudaMemPool_t pool, cudaError_t status, std::size_t bytes,
                                          std::source_location const& where)
  {
    if (status == cudaErrorMemoryAllocation) {
      static_cast<void>(cudaGetLastError());
      throw_resource_failure(bad_alloc(bytes, "umsync::memory_pool_ref (cudaMallocFromPoolAsync)", describe_state(pool),
                                       where));
    }
    throw_resource_failure(cuda_error(status, "cudaMallocFromPoolAsync (memory_pool_ref::allocate)", where));
  }
};

/// The cuda::mr members of memory_pool_ref and memory_pool, written once: a stream-ordered
/// resource of device-accessible memory in the spelling of the CCCL this is compiled with
/// (resource.hpp's table), and in no other. `Derived` gives `pool_to_allocate_from(where)`.
///
/// The alignment must be a power of two of at most 256, the alignment of every pool allocation,
/// else invalid_argument (checked first, also for a moved-from pool); out of memory is bad_alloc naming the pool, and any other failed CUDA
/// call cuda_error (in a program that includes umsync/rmm.hpp: RMM's out_of_memory and
/// bad_alloc, each also a umsync::error with the same message). Zero bytes allocate nothing (a
/// null pointer), and a null pointer frees nothing. A free cannot throw (CCCL 3.1's
/// resource_ref calls it noexcept, and buffers free in destructors): its failure goes to the
/// destructor error handler. The pool knows each allocation's size and alignment, so a free
/// ignores both.
template <class Derived>
class pool_resource {
 public:
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  /// `bytes` ordered on `stream` (cudaMallocFromPoolAsync).
  template <stream_ref_argument Stream>
  [[nodiscard]] void* allocate(Stream const& stream, std::size_t bytes, std::size_t alignment,
                               std::source_location where = std::source_location::current()) const
  {
    pool_calls::check_alignment(alignment);
    return pool_calls::allocate_on(self().pool_to_allocate_from(where), raw_stream_of(stream), bytes, where);
  }
  /// Frees `memory` ordered on `stream` (cudaFreeAsync).
  template <stream_ref_argument Stream>
  void deallocate(Stream const& stream, void* memory, std::size_t /*bytes*/, std::size_t /*alignment*/,
                  std::source_location where = std::source_location::current()) const noexcept
  {
    pool_calls::free_on(raw_stream_of(stream), memory, where);
  }
  /// `bytes` usable on any stream on return: allocated on the calling thread's default stream,
  /// which is then synchronized (as RMM's cuda_async_memory_resource does).
  [[nodiscard]] void* allocate_sync(std::size_t bytes, std::size_t alignment,
                                    std::source_location where = std::source_location::current()) const
  {
    pool_calls::check_alignment(alignment);
    return pool_calls::allocate_synchronized(self().pool_to_allocate_from(where), bytes, where);
  }
  /// Frees `memory`, which no queued work may still use, and returns once the pool has it back.
  void deallocate_sync(void* memory, std::size_t /*bytes*/, std::size_t /*alignment*/,
                       std::source_location where = std::source_location::current()) const noexcept
  {
    pool_calls::free_synchronized(memory, where);
  }
#else
  /// `bytes` ordered on `stream` (cudaMallocFromPoolAsync).
  template <stream_ref_argument Stream>
  [[nodiscard]] void* allocate_async(std::size_t bytes, std::size_t alignment, Stream const& stream,
                                     std::source_location where = std::source_location::current()) const
  {
    pool_calls::check_alignment(alignment);
    return pool_calls::allocate_on(self().pool_to_allocate_from(where), raw_stream_of(stream), bytes, where);
  }
  /// Frees `memory` ordered on `stream` (cudaFreeAsync).
  template <stream_ref_argument Stream>
  void deallocate_async(void* memory, std::size_t /*bytes*/, std::size_t /*alignment*/, Stream const& stream,
                        std::source_location where = std::source_location::current()) const noexcept
  {
    pool_calls::free_on(raw_stream_of(stream), memory, where);
  }
  /// `bytes` usable on any stream on return: allocated on the calling thread's default stream,
  /// which is then synchronized (as RMM's cuda_async_memory_resource does).
  [[nodiscard]] void* allocate(std::size_t bytes, std::size_t alignment,
                               std::source_location where = std::source_location::current()) const
  {
    pool_calls::check_alignment(alignment);
    return pool_calls::allocate_synchronized(self().pool_to_allocate_from(where), bytes, where);
  }
  /// Frees `memory`, which no queued work may still use, and returns once the pool has it back.
  void deallocate(void* memory, std::size_t /*bytes*/, std::size_t /*alignment*/,
                  std::source_location where = std::source_location::current()) const noexcept
  {
    pool_calls::free_synchronized(memory, where);
  }
#endif

 private:
  [[nodiscard]] Derived const& self() const noexcept { return static_cast<Derived const&>(*this); }
};

/// R has CCCL 3.1's four names: allocate(stream, bytes, alignment), deallocate(stream, p, bytes,
/// alignment), allocate_sync(bytes, alignment), deallocate_sync(p, bytes, alignment).
template <class R>
concept spelled_as_cccl31 = requires(R const& r, cudaStream_t s, void* p, std::size_t n)
{
  r.allocate(s, n, n);
  r.deallocate(s, p, n, n);
  r.allocate_sync(n, n);
  r.deallocate_sync(p, n, n);
};
/// R has CCCL 3.0's four names: allocate_async(bytes, alignment, stream), deallocate_async(p,
/// bytes, alignment, stream), allocate(bytes, alignment), deallocate(p, bytes, alignment).
template <class R>
concept spelled_as_cccl30 = requires(R const& r, cudaStream_t s, void* p, std::size_t n)
{
  r.allocate_async(n, n, s);
  r.deallocate_async(p, n, n, s);
  r.allocate(n, n);
  r.deallocate(p, n, n);
};
/// R has any one of CCCL 3.1's names with 3.1's arguments.
template <class R>
concept has_a_cccl31_name = requires(R const& r, cudaStream_t s, std::size_t n)
{
  r.allocate(s, n, n);
}
|| requires(R const& r, cudaStream_t s, void* p, std::size_t n) { r.deallocate(s, p, n, n); }
|| requires(R const& r, std::size_t n) { r.allocate_sync(n, n); }
|| requires(R const& r, void* p, std::size_t n) { r.deallocate_sync(p, n, n); };
/// R has any one of CCCL 3.0's names with 3.0's arguments.
template <class R>
concept has_a_cccl30_name = requires(R const& r, cudaStream_t s, std::size_t n)
{
  r.allocate_async(n, n, s);
}
|| requires(R const& r, cudaStream_t s, void* p, std::size_t n) { r.deallocate_async(p, n, n, s); }
|| requires(R const& r, std::size_t n) { r.allocate(n, n); }
|| requires(R const& r, void* p, std::size_t n) { r.deallocate(p, n, n); };

/// R has each cuda::mr operation under this CCCL's name only, so that no call is stream-ordered
/// or synchronous by the order of its arguments (the conformance check under each pool type;
/// the cuda::mr concepts are asserted in resource.hpp).
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
template <class R>
concept one_spelling_per_operation = spelled_as_cccl31<R> && !has_a_cccl30_name<R>;
#else
template <class R>
concept one_spelling_per_operation = spelled_as_cccl30<R> && !has_a_cccl31_name<R>;
#endif

}  // namespace detail

class memory_pool_ref : public detail::pool_resource<memory_pool_ref> {
 public:
  /// Keeps all memory the pool has reserved until trimmed or destroyed.
  static constexpr std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();

  constexpr explicit memory_pool_ref(cudaMemPool_t handle) noexcept : handle_(handle) {}

  /// The device's default pool (what cudaMallocAsync uses). Its release threshold is left as
  /// the driver or other code set it (CCCL 3.5's cuda::device_default_memory_pool() raises it to
  /// keep_everything, docs/compatibility.md); call set_release_threshold to choose.
  [[nodiscard]] static memory_pool_ref device_default(int device,
                                                      std::source_location where = std::source_location::current())
  {
    cudaMemPool_t pool = nullptr;
    check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool", where);
    return memory_pool_ref(pool);
  }

  [[nodiscard]] constexpr cudaMemPool_t get() const noexcept { return handle_; }

  [[nodiscard]] std::uint64_t release_threshold() const
  {
    return attribute(cudaMemPoolAttrReleaseThreshold, "release threshold");
  }
  void set_release_threshold(std::uint64_t bytes, std::source_location where = std::source_location::current()) const
  {
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrReleaseThreshold, &bytes),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", where);
  }

  /// Bytes the pool holds from the driver now, and at most since the last reset.
  [[nodiscard]] std::uint64_t reserved_bytes() const
  {
    return attribute(cudaMemPoolAttrReservedMemCurrent, "reserved");
  }
  [[nodiscard]] std::uint64_t reserved_high_water() const
  {
    return attribute(cudaMemPoolAttrReservedMemHigh, "reserved high water");
  }
  /// Bytes handed out to allocations now, and at most since the last reset.
  [[nodiscard]] std::uint64_t used_bytes() const { return attribute(cudaMemPoolAttrUsedMemCurrent, "used"); }
  [[nodiscard]] std::uint64_t used_high_water() const
  {
    return attribute(cudaMemPoolAttrUsedMemHigh, "used high water");
  }
  void reset_high_water(std::source_location where = std::source_location::current()) const
  {
    std::uint64_t zero = 0;
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrReservedMemHigh, &zero),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReservedMemHigh)", where);
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrUsedMemHigh, &zero),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrUsedMemHigh)", where);
  }

  /// Which freed blocks the pool may hand out again, and when (see cudaMemPoolAttr). CUDA's
  /// default allows all three. allow_internal_dependencies lets an allocation on one stream wait
  /// for a free on another to reuse its block: correct, but it can silently serialize a
  /// loader -> compute pipeline; turn it off where streams must run independently.
  struct reuse_policy {
    bool follow_event_dependencies = true;    ///< reuse across streams ordered by events
    bool allow_opportunistic = true;          ///< reuse when the free has completed, unordered
    bool allow_internal_dependencies = true;  ///< the pool may insert waits to reuse
  };
  [[nodiscard]] reuse_policy reuse() const
  {
    return {int_attribute(cudaMemPoolReuseFollowEventDependencies) != 0,
            int_attribute(cudaMemPoolReuseAllowOpportunistic) != 0,
            int_attribute(cudaMemPoolReuseAllowInternalDependencies) != 0};
  }
  void set_reuse(reuse_policy policy, std::source_location where = std::source_location::current()) const
  {
    set_int_attribute(cudaMemPoolReuseFollowEventDependencies, policy.follow_event_dependencies, where);
    set_int_attribute(cudaMemPoolReuseAllowOpportunistic, policy.allow_opportunistic, where);
    set_int_attribute(cudaMemPoolReuseAllowInternalDependencies, policy.allow_internal_dependencies, where);
  }

  /// Returns reserved memory to the driver until at most `keep_bytes` remain reserved
  /// (memory in use is never released).
  void trim_to(std::size_t keep_bytes, std::source_location where = std::source_location::current()) const
  {
    check(cudaMemPoolTrimTo(handle_, keep_bytes), "cudaMemPoolTrimTo", where);
  }

  /// Lets device `peer` read and write this pool's allocations (or takes that away).
  void set_peer_access(int peer, bool read_write, std::source_location where = std::source_location::current()) const
  {
    cudaMemAccessDesc desc{};
    desc.location = {cudaMemLocationTypeDevice, peer};
    desc.flags = read_write ? cudaMemAccessFlagsProtReadWrite : cudaMemAccessFlagsProtNone;
    check(cudaMemPoolSetAccess(handle_, &desc, 1), "cudaMemPoolSetAccess", where);
  }

  /// A pool's memory lives on a device: cuda::mr::device_accessible.
  friend void get_property(memory_pool_ref const&, cuda::mr::device_accessible) noexcept {}

  friend constexpr bool operator==(memory_pool_ref a, memory_pool_ref b) noexcept { return a.handle_ == b.handle_; }

 private:
  friend class detail::pool_resource<memory_pool_ref>;
  /// A handle allocates from its pool as it is (a null one fails in CUDA, after the checks).
  [[nodiscard]] constexpr cudaMemPool_t pool_to_allocate_from(std::source_location const&) const noexcept
  {
    return handle_;
  }

  std::uint64_t attribute(cudaMemPoolAttr attr, char const* name,
                          std::source_location where = std::source_location::current()) const
  {
    std::uint64_t value = 0;
    check(cudaMemPoolGetAttribute(handle_, attr, &value), detail::compose<96>("cudaMemPoolGetAttribute(", name, ")"),
          where);
    return value;
  }
  int int_attribute(cudaMemPoolAttr attr, std::source_location where = std::source_location::current()) const
  {
    int value = 0;
    check(cudaMemPoolGetAttribute(handle_, attr, &value), "cudaMemPoolGetAttribute(reuse policy)", where);
    return value;
  }
  void set_int_attribute(cudaMemPoolAttr attr, bool on, std::source_location where) const
  {
    int value = on ? 1 : 0;
    check(cudaMemPoolSetAttribute(handle_, attr, &value), "cudaMemPoolSetAttribute(reuse policy)", where);
  }

  cudaMemPool_t handle_;
};
static_assert(detail::one_spelling_per_operation<memory_pool_ref>);

struct memory_pool_options {
  int device = 0;  ///< where the memory lives
  std::uint64_t release_threshold = memory_pool_ref::keep_everything;
  std::size_t max_bytes = 0;  ///< 0: no limit but the device's
  /// Allocations may be shared with other processes (POSIX file descriptor handles; see
  /// umsync/memory/pool_ipc.hpp).
  bool exportable = false;
  /// Reuse rules, set at creation (CUDA's default: everything allowed).
  memory_pool_ref::reuse_policy reuse = {};
};

namespace detail {

/// Destroys an owned pool; `imported` pools own no memory of their own and refuse trimming.
struct destroy_pool {
  bool imported = false;
  void operator()(cudaMemPool_t handle) const noexcept
  {
    // Give unused reserved memory back now; cudaMemPoolDestroy alone may defer the release.
    if (!imported) {
      report_in_destructor(cudaMemPoolTrimTo(handle, 0), "cudaMemPoolTrimTo");
    }
    report_in_destructor(cudaMemPoolDestroy(handle), "cudaMemPoolDestroy");
  }
};

/// States that a handle is never taken from a temporary pool (once instantiated with a
/// dependent `Pool`).
template <class Pool>
constexpr void reject_temporary_pool() noexcept
{
  static_assert(dependent_false<Pool>,
                "umsync: a memory_pool_ref is taken from a named memory_pool only: a temporary pool is destroyed at "
                "the end of its statement, and the policy, buffer or export holding its handle would use a destroyed "
                "pool; name the pool as a variable that outlives its users");
}

}  // namespace detail

/// An owning pool on one device. Move-only; destroying it while allocations from it are
/// still alive is a bug the driver defers (it frees the pool when they are freed).
class memory_pool : public detail::pool_resource<memory_pool> {
 public:
  explicit memory_pool(memory_pool_options options = {}, std::source_location where = std::source_location::current())
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = options.exportable ? cudaMemHandleTypePosixFileDescriptor : cudaMemHandleTypeNone;
    props.location = {cudaMemLocationTypeDevice, options.device};
    props.maxSize = options.max_bytes;
    cudaMemPool_t handle = nullptr;
    check(cudaMemPoolCreate(&handle, &props), "cudaMemPoolCreate", where);
    handle_ = decltype(handle_)(handle);  // owned from here: a failure below destroys it
    memory_pool_ref(handle).set_release_threshold(options.release_threshold, where);
    memory_pool_ref(handle).set_reuse(options.reuse, where);
  }
  /// Takes ownership of `handle`, a pool imported from another process (pool_ipc.hpp).
  /// Imported pools own no memory of their own and refuse trimming, so none is attempted.
  [[nodiscard]] static memory_pool adopt_imported(cudaMemPool_t handle) noexcept { return memory_pool(handle); }

  /// A handle for attribute access and allocation; throws usage_error when moved from.
  ///
  /// A handle is taken from a pool that has a name only. A temporary pool is destroyed at the
  /// end of its statement, so a handle to it (and the policy, buffer, export or reference that
  /// keeps one) would name a destroyed pool: taking one from an rvalue states that rule and
  /// does not compile. This is the one place every memory_pool becomes a memory_pool_ref
  /// (exec_policy, stream_buffer, pool_ipc, a device_resource_ref to a handle), so it holds
  /// for each of them. (Templates, so that the message fires only where a temporary is used:
  /// std::is_convertible still reports true, and the call names the rule.)
  [[nodiscard]] memory_pool_ref ref() const& { return memory_pool_ref(handle_.get_or_throw("umsync::memory_pool")); }
  template <class Pool = memory_pool>
  [[nodiscard]] memory_pool_ref ref() const&&  // NOLINT: exists to reject a temporary with a message
  {
    detail::reject_temporary_pool<Pool>();
    return memory_pool_ref(nullptr);
  }
  operator memory_pool_ref() const& { return ref(); }  // NOLINT: a pool is usable where a ref is
  template <class Pool = memory_pool>
  operator memory_pool_ref() const&&  // NOLINT: exists to reject a temporary with a message
  {
    detail::reject_temporary_pool<Pool>();
    return memory_pool_ref(nullptr);
  }
  [[nodiscard]] cudaMemPool_t get() const { return ref().get(); }

  // cuda::mr (resource.hpp): detail::pool_resource's members, as memory_pool_ref's. Allocating
  // from a moved-from pool throws usage_error; freeing needs no pool (cudaFreeAsync), so it works
  // and cannot throw.

  /// A pool's memory lives on a device: cuda::mr::device_accessible.
  friend void get_property(memory_pool const&, cuda::mr::device_accessible) noexcept {}

  /// The same pool (CCCL compares resources to tell whether one may free another's memory).
  friend bool operator==(memory_pool const& a, memory_pool const& b) noexcept
  {
    return a.handle_.get() == b.handle_.get();
  }

 private:
  friend class detail::pool_resource<memory_pool>;
  [[nodiscard]] cudaMemPool_t pool_to_allocate_from(std::source_location const&) const
  {
    return handle_.get_or_throw("umsync::memory_pool");
  }

  explicit memory_pool(cudaMemPool_t handle) noexcept : handle_(handle, detail::destroy_pool{.imported = true}) {}

  detail::unique_handle<cudaMemPool_t, detail::destroy_pool> handle_;
};
static_assert(detail::one_spelling_per_operation<memory_pool>);

UMSYNC_NAMESPACE_END
