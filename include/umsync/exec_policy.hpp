// umsync/exec_policy.hpp: Thrust (and what it runs of CUB) on a umsync stream, its temporary
// memory stream-ordered on that stream.
//
//   umsync::stream<compute> s;
//   umsync::memory_pool pool;
//   thrust::sort(umsync::exec_policy(s), keys, keys + n);                  // the device's current pool
//   float const sum = thrust::reduce(umsync::exec_policy(s, pool), x, x + n);  // from `pool`
//   thrust::transform(umsync::exec_policy_nosync(s), x, x + n, y, op);     // no synchronization
//
// The temporaries come from the device's current pool, or from what the second argument names:
// a memory_pool or memory_pool_ref, a umsync::device_resource_ref, or any stream-ordered
// resource of device-accessible memory (memory/resource.hpp: RMM's, CCCL's, a user's), which the
// policy borrows (it must outlive the policy). A temporary memory_pool or resource does not
// compile: it would be destroyed when the statement that makes the policy ends (a pool by
// memory_pool's own rule, memory_pool.hpp; a resource here).
//
// A Thrust algorithm that needs scratch memory (sort, reduce, scan, ...) asks its policy's
// allocator. Thrust's default one calls cudaMalloc and cudaFree, which synchronize the device;
// this policy's allocates with cudaMallocAsync (or cudaMallocFromPoolAsync from a memory_pool)
// and frees with cudaFreeAsync, both on the policy's stream, so the scratch memory is ordered
// with the algorithm's kernels and reused by the pool without a device synchronization. This is
// what rmm::exec_policy does with an RMM resource.
//
// exec_policy is thrust::cuda::par(allocator).on(stream): Thrust synchronizes the stream where
// an algorithm returns a value to the host, and where it chooses to. exec_policy_nosync is
// thrust::cuda::par_nosync(allocator).on(stream): only the synchronizations a result needs.
// Both work with every Thrust algorithm, and as the policy of a thrust::device_vector's
// operations. Running out of pool memory throws umsync::bad_alloc naming the pool's state and
// where the policy was made.
//
// Thrust takes iterators and raw pointers, which carry no stream tag: to have umsync's memory
// checked against the stream (its tag, its kind, read-only memory), call Thrust inside
// umsync::library_call (library_call.hpp) and make the policy there, from the raw stream the
// callable receives: umsync::exec_policy(umsync::stream_view<Tag>{raw}). A raw cudaStream_t
// given to the policy directly does not compile. The stream's device must be current when the
// algorithm runs, as for every stream-ordered allocation.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream_view.hpp>

#include <thrust/device_malloc_allocator.h>
#include <thrust/device_ptr.h>
#include <thrust/system/cuda/execution_policy.h>

#include <concepts>
#include <cstddef>
#include <new>
#include <optional>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// Where a policy's temporaries come from: a borrowed stream-ordered resource (an object, by
/// its address and functions that call it, or a copy of a device_resource_ref); else `pool`
/// (cudaMallocFromPoolAsync), or the device's current pool (cudaMallocAsync) when null.
struct temporary_source {
  cudaMemPool_t pool = nullptr;
  void* object = nullptr;
  void* (*allocate)(void*, cudaStream_t, std::size_t) = nullptr;
  void (*deallocate)(void*, cudaStream_t, void*, std::size_t) = nullptr;
  std::optional<device_resource_ref> ref;
  char const* name = nullptr;  ///< the resource, for bad_alloc's message

  template <class Resource>
  static temporary_source borrow(Resource& resource, char const* name) noexcept
  {
    temporary_source source;
    source.object = const_cast<std::remove_const_t<Resource>*>(&resource);  // NOLINT: restored below
    source.allocate = [](void* object, cudaStream_t stream, std::size_t bytes) {
      return allocate_from(*static_cast<Resource*>(object), stream, bytes, device_allocation_alignment);
    };
    source.deallocate = [](void* object, cudaStream_t stream, void* memory, std::size_t bytes) {
      deallocate_to(*static_cast<Resource*>(object), stream, memory, bytes, device_allocation_alignment);
    };
    source.name = name;
    return source;
  }
  static temporary_source refer(device_resource_ref ref, char const* name) noexcept
  {
    temporary_source source;
    source.ref = ref;
    source.name = name;
    return source;
  }
  [[nodiscard]] bool is_resource() const noexcept { return object != nullptr || ref.has_value(); }
};

/// Thrust's allocator for a policy's temporaries: stream-ordered on `stream`, from `source`.
template <class T>
class thrust_temporary_allocator : public thrust::device_malloc_allocator<T> {
  using base = thrust::device_malloc_allocator<T>;

 public:
  using pointer = typename base::pointer;
  using size_type = typename base::size_type;

  /// Thrust rebinds to the element types it needs scratch memory of.
  template <class U>
  struct rebind {
    using other = thrust_temporary_allocator<U>;
  };

  thrust_temporary_allocator(cudaStream_t stream, temporary_source source, std::source_location const& where) noexcept
      : stream_(stream), source_(std::move(source)), where_(where)
  {}
  template <class U>
  thrust_temporary_allocator(thrust_temporary_allocator<U> const& other) noexcept  // NOLINT: Thrust rebinds
      : stream_(other.stream()), source_(other.source()), where_(other.where())
  {}

  /// Through the one allocation path (allocate_elements: overflow, bad_alloc naming the pool or
  /// resource and the policy's line, the UMSYNC_DEBUG checker).
  [[nodiscard]] pointer allocate(size_type count)
  {
    std::string said;  // what a resource said when it failed
    owned_elements<T> const memory = allocate_elements<T>(
        count, "umsync::exec_policy (a Thrust temporary)", call_name(),
        [&](void** out, std::size_t bytes) -> cudaError_t {
          if (!source_.is_resource()) {
            return source_.pool != nullptr ? cudaMallocFromPoolAsync(out, bytes, source_.pool, stream_)
                                           : cudaMallocAsync(out, bytes, stream_);
          }
          try {
            *out = source_.ref.has_value() ? allocate_from(*source_.ref, stream_, bytes, device_allocation_alignment)
                                           : source_.allocate(source_.object, stream_, bytes);
            return cudaSuccess;
          } catch (std::bad_alloc const& failure) {
            said = failure.what();
            return cudaErrorMemoryAllocation;
          }
        },
        where_, [&] { return said.empty() ? describe_pool() : message_text(said); });
    return thrust::device_pointer_cast(memory.data);
  }

  /// A free cannot throw: a failure goes to the destructor error handler.
  void deallocate(pointer memory, size_type count) noexcept
  {
    T* const raw = thrust::raw_pointer_cast(memory);
    if (raw == nullptr) {
      return;
    }
    debug::note_freed(raw);
    if (!source_.is_resource()) {
      report_in_destructor(cudaFreeAsync(raw, stream_), "cudaFreeAsync (a Thrust temporary of umsync::exec_policy)",
                           where_);
      return;
    }
    try {
      if (source_.ref.has_value()) {
        deallocate_to(*source_.ref, stream_, raw, count * sizeof(T), device_allocation_alignment);
      } else {
        source_.deallocate(source_.object, stream_, raw, count * sizeof(T));
      }
    } catch (error const& failure) {
      report_in_destructor(failure);
    } catch (...) {
      report_in_destructor(cudaErrorUnknown, "a resource's deallocate (a Thrust temporary of umsync::exec_policy)",
                           where_);
    }
  }

  [[nodiscard]] cudaStream_t stream() const noexcept { return stream_; }
  [[nodiscard]] temporary_source const& source() const noexcept { return source_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  [[nodiscard]] char const* call_name() const noexcept
  {
    return source_.is_resource()     ? source_.name
           : source_.pool != nullptr ? "cudaMallocFromPoolAsync"
                                     : "cudaMallocAsync";
  }
  [[nodiscard]] message_text describe_pool() const noexcept
  {
    message_text text;
    if (!source_.is_resource()) {
      text.append(pool_calls::describe_state(source_.pool).view());
    }
    return text;
  }

  cudaStream_t stream_;
  temporary_source source_;
  std::source_location where_;
};

/// The source of a policy's temporaries for `resource`: a memory_pool or memory_pool_ref, a
/// device_resource_ref, or a stream-ordered resource object (borrowed); anything else names the
/// rule it breaks.
template <class Resource>
temporary_source temporary_source_of(Resource&& resource)
{
  using R = std::remove_reference_t<Resource>;
  // memory_pool's conversion refuses a temporary pool with its rule (memory_pool.hpp).
  if constexpr (std::is_convertible_v<Resource&&, memory_pool_ref>) {
    temporary_source source;
    source.pool = static_cast<memory_pool_ref>(std::forward<Resource>(resource)).get();
    return source;
  } else if constexpr (std::is_same_v<std::remove_cv_t<R>, device_resource_ref> ||
                       is_resource_ref<std::remove_cv_t<R>>) {
    return temporary_source::refer(device_resource_ref(resource), "the resource of a umsync::device_resource_ref");
  } else if constexpr (!stream_ordered_resource<std::remove_cv_t<R>>) {
    static_assert(dependent_false<R>,
                  "umsync: an exec_policy takes its temporaries from a memory_pool, a memory_pool_ref or a "
                  "stream-ordered resource of device-accessible memory (umsync::stream_ordered_resource)");
    return {};
  } else if constexpr (!std::is_lvalue_reference_v<Resource>) {
    static_assert(dependent_false<R>,
                  "umsync: an exec_policy borrows its resource, which must outlive the policy, and a temporary dies "
                  "first: name the resource as a variable, or pass a umsync::device_resource_ref to one");
    return {};
  } else {
    return temporary_source::borrow(resource, "a stream-ordered resource");
  }
}

template <template <class> class Base>
using thrust_policy_with_temporaries = thrust::detail::execute_with_allocator<thrust_temporary_allocator<char>, Base>;

/// States that a policy takes a umsync stream (once instantiated with a dependent `Context`).
template <class Context>
constexpr void reject_raw_policy_stream() noexcept
{
  static_assert(
      dependent_false<Context>,
      "umsync: an exec_policy takes a umsync stream (stream<Tag>, stream_view<Tag> or capturing_stream<Tag>), "
      "on which its temporaries are allocated and freed; adopt a raw cudaStream_t with "
      "umsync::stream_view<Tag>{handle}");
}

}  // namespace detail

/// Thrust's CUDA policy on `stream` (thrust::cuda::par.on(stream)), its temporaries allocated
/// and freed on that stream.
class exec_policy : public detail::thrust_policy_with_temporaries<thrust::cuda_cub::execute_on_stream_base> {
  using base = detail::thrust_policy_with_temporaries<thrust::cuda_cub::execute_on_stream_base>;

 public:
  /// Temporaries from the current device's current pool (cudaMallocAsync).
  template <stream_handle Stream>
  explicit exec_policy(Stream const& stream, std::source_location where = std::source_location::current())
      : base(thrust::cuda::par(detail::thrust_temporary_allocator<char>(stream.get(), {}, where)).on(stream.get()))
  {}
  /// Temporaries from `resource`: a memory_pool or memory_pool_ref (cudaMallocFromPoolAsync), a
  /// device_resource_ref, or a stream-ordered resource (resource.hpp), which the policy borrows:
  /// it must outlive the policy.
  template <stream_handle Stream, class Resource>
    requires(!std::is_same_v<std::remove_cvref_t<Resource>, std::source_location>)
  exec_policy(Stream const& stream, Resource&& resource, std::source_location where = std::source_location::current())
      : base(thrust::cuda::par(detail::thrust_temporary_allocator<char>(
                                   stream.get(), detail::temporary_source_of(std::forward<Resource>(resource)), where))
                 .on(stream.get()))
  {}
  template <std::same_as<cudaStream_t> Raw, class... Rest>
  explicit exec_policy(Raw, Rest&&...)  // NOLINT: exists to reject a raw stream with a message
      : base(thrust::cuda::par(detail::thrust_temporary_allocator<char>(nullptr, {}, {})))
  {
    detail::reject_raw_policy_stream<Raw>();
  }
};

/// As exec_policy, but Thrust skips the stream synchronizations a result does not need
/// (thrust::cuda::par_nosync.on(stream)): the caller orders what follows on the stream.
class exec_policy_nosync
    : public detail::thrust_policy_with_temporaries<thrust::cuda_cub::execute_on_stream_nosync_base> {
  using base = detail::thrust_policy_with_temporaries<thrust::cuda_cub::execute_on_stream_nosync_base>;

 public:
  template <stream_handle Stream>
  explicit exec_policy_nosync(Stream const& stream, std::source_location where = std::source_location::current())
      : base(thrust::cuda::par_nosync(detail::thrust_temporary_allocator<char>(stream.get(), {}, where))
                 .on(stream.get()))
  {}
  template <stream_handle Stream, class Resource>
    requires(!std::is_same_v<std::remove_cvref_t<Resource>, std::source_location>)
  exec_policy_nosync(Stream const& stream, Resource&& resource,
                     std::source_location where = std::source_location::current())
      : base(thrust::cuda::par_nosync(detail::thrust_temporary_allocator<char>(
                                          stream.get(), detail::temporary_source_of(std::forward<Resource>(resource)),
                                          where))
                 .on(stream.get()))
  {}
  template <std::same_as<cudaStream_t> Raw, class... Rest>
  explicit exec_policy_nosync(Raw, Rest&&...)  // NOLINT: exists to reject a raw stream with a message
      : base(thrust::cuda::par_nosync(detail::thrust_temporary_allocator<char>(nullptr, {}, {})))
  {
    detail::reject_raw_policy_stream<Raw>();
  }
};

UMSYNC_NAMESPACE_END
