// umsync/memory/async_pool_buffer.hpp: device memory that lives on one stream.
//
//   umsync::stream<compute> s;
//   umsync::async_pool_buffer<float, compute> x(n, s);           // cudaMallocAsync on s
//   umsync::async_pool_buffer<float, compute> y(n, s, pool);     // from a memory_pool
//   umsync::async_pool_buffer<float, compute> z(n, s, arena);    // from any stream-ordered resource
//   umsync::launch(s, cfg, kernel, x, y, z);                      // fine: same tag
//
// The buffer is bound to its stream's tag: using it on a stream with another tag does not
// compile, and the only way across is a stream_edge's transfer (stream_edge.hpp), which orders
// the streams with an event and rebinds the buffer. It is freed (cudaFreeAsync) on the stream it
// is bound to when destroyed, so the free is ordered after the work that used it there.
//
// A buffer may also take its memory from a cuda::mr resource (resource.hpp): any lvalue that
// models stream_ordered_resource (RMM's, CCCL's, a user's), or a device_resource_ref such as
// rmm::mr::get_current_device_resource_ref(). The buffer borrows the resource: it must outlive
// the buffer, as for RMM's device_buffer. The memory is asked for 256-aligned, ordered on the
// buffer's stream, and given back to the same resource on the stream the buffer is bound to
// then (after a transfer, the new one). A resource that is synchronous only, whose memory is not
// device accessible, or that is a temporary is refused at compile time; a resource that runs out
// (throws std::bad_alloc, or returns null) gives umsync::bad_alloc naming it.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/resource.hpp>
#include <umsync/stream_view.hpp>

#include <cuda/stream_ref>

#include <concepts>
#include <cstddef>
#include <new>
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

enum class edge_timing;
template <class From, class To, edge_timing Timing>
class stream_edge;

/// The permission to rebind a buffer to another stream. Only a stream_edge can make one, right
/// after it has ordered the two streams, so rebinding without an edge does not compile.
class rebind_key {
  template <class, class, edge_timing>
  friend class stream_edge;
  rebind_key() = default;
};

namespace detail {

/// The resource a buffer's memory goes back to, borrowed (it must outlive the buffer): a
/// resource object, by its address and a function that frees to its type, or a copy of a
/// device_resource_ref. Empty: CUDA's own stream-ordered allocator (cudaFreeAsync). An object
/// is not wrapped in a device_resource_ref because CCCL 3.1's refers to copyable types only.
class borrowed_resource {
 public:
  borrowed_resource() = default;
  template <class Resource>
    requires(!std::is_same_v<std::remove_cv_t<Resource>, device_resource_ref>)
  explicit borrowed_resource(Resource& resource) noexcept
      : object_(const_cast<std::remove_const_t<Resource>*>(&resource)),  // NOLINT: restored below
        deallocate_([](void* object, cudaStream_t stream, void* memory, std::size_t bytes) {
          deallocate_to(*static_cast<Resource*>(object), stream, memory, bytes, device_allocation_alignment);
        })
  {}
  /// (A template so that no resource converts to it: CCCL 3.1 rejects a move-only one with a
  /// hard error while merely trying.)
  template <std::same_as<device_resource_ref> Ref>
  explicit borrowed_resource(Ref ref) noexcept : ref_(ref)
  {}

  [[nodiscard]] bool empty() const noexcept { return deallocate_ == nullptr && !ref_.has_value(); }

  /// Gives `bytes` at `memory` back, ordered on `stream`; throws what the resource throws.
  void deallocate(cudaStream_t stream, void* memory, std::size_t bytes) const
  {
    if (ref_.has_value()) {
      deallocate_to(*ref_, stream, memory, bytes, device_allocation_alignment);
    } else {
      deallocate_(object_, stream, memory, bytes);
    }
  }

 private:
  void* object_ = nullptr;
  void (*deallocate_)(void*, cudaStream_t, void*, std::size_t) = nullptr;
  mutable std::optional<device_resource_ref> ref_;  ///< mutable: freed through without a copy
};

/// Frees pool memory on the stream it is bound to (cudaFreeAsync, or to the resource it came
/// from), after telling the UMSYNC_DEBUG checker, whose finding goes to the destructor handler:
/// a free cannot throw.
struct free_on_stream {
  cudaStream_t stream = nullptr;
  borrowed_resource resource;  ///< empty: the memory came from cudaMallocAsync / a memory_pool
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    try {
      debug::note_access(memory.data, memory.size * sizeof(T), stream, debug::access::free,
                         std::source_location::current());
    } catch (error const& unordered) {
      report_in_destructor(unordered);
    } catch (...) {
      report_in_destructor(cudaErrorUnknown, "the ordering checker, at a free");
    }
    debug::note_freed(memory.data);
    if (resource.empty()) {
      report_in_destructor(cudaFreeAsync(memory.data, stream), "cudaFreeAsync");
      return;
    }
    try {
      resource.deallocate(stream, memory.data, memory.size * sizeof(T));
    } catch (error const& failure) {
      report_in_destructor(failure);
    } catch (...) {
      report_in_destructor(cudaErrorUnknown, "a memory resource's deallocate, at a buffer's free");
    }
  }
};

/// A resource ran out: umsync::bad_alloc naming it (`name`), with what it said, as
/// allocate_elements words it.
[[noreturn]] inline void resource_exhausted(std::size_t bytes, std::string_view name, std::string_view said,
                                            std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw bad_alloc(bytes, name,
                  said.empty() ? std::string("a stream-ordered resource")
                               : "a stream-ordered resource: " + std::string(said),
                  where);
}

/// allocate_from for allocate_elements: cudaErrorMemoryAllocation when the resource returns
/// null. When it runs out (throws std::bad_alloc, or CCCL 3.1's cuda::cuda_error of out of
/// memory), umsync::bad_alloc naming `name` with what it said, thrown here, where what it said
/// is at hand (so that the allocation keeps no text of its own); anything else it throws passes
/// through.
template <class Resource>
cudaError_t allocate_or_report(Resource& resource, cudaStream_t stream, std::size_t bytes, void*& memory,
                               std::string_view name, std::source_location const& where)
{
  try {
    memory = allocate_from(resource, stream, bytes, device_allocation_alignment);
  } catch (std::bad_alloc const& exhausted) {
    std::string_view text = exhausted.what();
    resource_exhausted(bytes, name, text.starts_with("umsync: ") ? text.substr(8) : text,
                       where);  // a pool's own bad_alloc, inside ours
  }
#if UMSYNC_DETAIL_CCCL_STREAM_ORDERED_ALLOCATE
  catch (cuda::cuda_error const& failure) {
    if (failure.status() != cudaErrorMemoryAllocation) {
      throw;
    }
    resource_exhausted(bytes, name, failure.what(), where);
  }
#endif
  return memory == nullptr ? cudaErrorMemoryAllocation : cudaSuccess;
}

}  // namespace detail

template <class T, class Tag = untagged>
class async_pool_buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "umsync: async_pool_buffer holds trivially copyable elements only (device memory is copied bytewise)");

 public:
  using value_type = T;
  using bound_tag_type = Tag;

  /// `count` elements from the current device's current pool (cudaMallocAsync), bound to
  /// `stream`. Size 0 allocates nothing.
  async_pool_buffer(std::size_t count, stream_view<Tag> stream,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(count, stream, std::nullopt, where)
  {}

  /// `count` elements from `pool`, bound to `stream`. A temporary memory_pool does not convert
  /// (memory_pool.hpp): it would be destroyed while the buffer lives.
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, memory_pool_ref pool,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(count, stream, std::optional<memory_pool_ref>(pool), where)
  {}

  /// `count` elements from `resource`, a stream-ordered resource of device-accessible memory
  /// (resource.hpp: RMM's, CCCL's, a user's), allocated 256-aligned on `stream` and given back
  /// to it on the stream the buffer is bound to then. The buffer borrows `resource`, which must
  /// outlive it. (A memory_pool or memory_pool_ref takes the constructor above.) A resource that
  /// is not stream-ordered, not device accessible, or a temporary, is refused at compile time.
  template <class Resource>
    // memory_pool, memory_pool_ref and the pool path's own std::optional take cudaMallocFromPoolAsync
    requires(!std::is_constructible_v<std::optional<memory_pool_ref>, Resource> &&
             !std::is_same_v<std::remove_cvref_t<Resource>, device_resource_ref> &&
             !std::is_same_v<std::remove_cvref_t<Resource>, std::source_location>)
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, Resource&& resource,
                    std::source_location where = std::source_location::current())
      : memory_(borrow_and_allocate(count, stream, std::forward<Resource>(resource), where))
  {
    note_first_write(where);
  }

  /// `count` elements from the resource `resource` refers to (e.g.
  /// rmm::mr::get_current_device_resource_ref()); that resource must outlive the buffer. (A
  /// template only so that nothing converts to it: a memory_pool would convert to both this and
  /// memory_pool_ref.)
  template <std::same_as<device_resource_ref> Ref>
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, Ref resource,
                    std::source_location where = std::source_location::current())
      : memory_(allocate_from_resource(count, stream, resource, detail::borrowed_resource(resource),
                                       "the resource of a umsync::device_resource_ref", where))
  {
    note_first_write(where);
  }

  /// A deep copy of `other` on `stream`, which names where the copy is ordered.
  async_pool_buffer(async_pool_buffer const& other, stream_view<Tag> stream,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(other.size(), stream, where)
  {
    other.memory_.debug_check_not_moved_from("umsync::async_pool_buffer (the source of a deep copy)");
    if (!empty()) {
      detail::debug::note_access(other.data(), other.size_bytes(), stream.get(), detail::debug::access::read, where);
      check(cudaMemcpyAsync(data(), other.data(), size_bytes(), cudaMemcpyDeviceToDevice, stream.get()),
            "cudaMemcpyAsync (async_pool_buffer deep copy)", where);
    }
  }

  /// A buffer is bound to the stream it is allocated on (or deep-copied on), so its Tag is
  /// that stream's; this overload exists to say so when they differ.
  template <class CountOrSource, stream_handle Stream, class... Rest>
    requires(!std::is_convertible_v<Stream const&, stream_view<Tag>> &&
             (std::is_convertible_v<CountOrSource, std::size_t> ||
              std::is_same_v<std::remove_cvref_t<CountOrSource>, async_pool_buffer>))
  async_pool_buffer(CountOrSource&&, Stream const&, Rest&&...)  // NOLINT: exists to reject with a message
  {
    static_assert(detail::dependent_false<Stream>,
                  "umsync: an async_pool_buffer<T, Tag> is bound to the stream it is allocated on, and that "
                  "stream has another tag; write async_pool_buffer<T, StreamTag>, or allocate on the Tag stream "
                  "and cross with a stream_edge's transfer");
  }

  /// Copies would free the same memory twice, and a deep copy must say on which stream it is
  /// ordered: use async_pool_buffer(other, stream). Declared (not deleted) only so that a copy
  /// fails with this message; the body is instantiated, and rejected, only where a copy is
  /// attempted. (std::is_copy_constructible therefore reports true.)
  async_pool_buffer(async_pool_buffer const& other)  // NOLINT: exists to reject copies with a message
  {
    static_cast<void>(other);
    static_assert(detail::dependent_false<T>,
                  "umsync: buffers are move-only; a deep copy names its stream: async_pool_buffer(other, stream)");
  }
  async_pool_buffer& operator=(async_pool_buffer const&) = delete;
  async_pool_buffer(async_pool_buffer&&) noexcept = default;
  async_pool_buffer& operator=(async_pool_buffer&&) noexcept = default;
  ~async_pool_buffer() = default;

  /// Takes over `other`'s memory, now bound to `stream`: a stream_edge's transfer, which has
  /// ordered `stream` after `other`'s stream (the key proves it). The memory still goes back to
  /// the resource it came from, now on `stream`.
  template <class OtherTag>
  async_pool_buffer(rebind_key key, async_pool_buffer<T, OtherTag>&& other, stream_view<Tag> stream) noexcept
      : memory_(std::move(other).release_memory(key),
                detail::free_on_stream{stream.get(), other.memory_.releaser().resource})
  {}

  /// Gives up the memory without freeing it (for a stream_edge's transfer).
  [[nodiscard]] detail::owned_elements<T> release_memory(rebind_key) && noexcept { return memory_.release(); }

  [[nodiscard]] T* data() noexcept { return memory_.get().data; }
  [[nodiscard]] T const* data() const noexcept { return memory_.get().data; }
  [[nodiscard]] std::size_t size() const noexcept { return memory_.get().size; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size() * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return memory_.empty(); }
  /// The stream the buffer is bound to: where it is freed.
  [[nodiscard]] stream_view<Tag> stream() const noexcept { return stream_view<Tag>{memory_.releaser().stream}; }

  [[nodiscard]] device_span<T, Tag> span() noexcept { return device_span<T, Tag>::adopt(data(), size()); }
  [[nodiscard]] device_span<T const, Tag> span() const noexcept
  {
    return device_span<T const, Tag>::adopt(data(), size());
  }

  /// The memory protocol (memory_range.hpp): device memory bound to `Tag`. UMSYNC_DEBUG builds
  /// refuse a moved-from buffer (a transfer's source too) with usage_error.
  friend device_span<T, Tag> umsync_memory(async_pool_buffer& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::async_pool_buffer");
    return buffer.span();
  }
  friend device_span<T const, Tag> umsync_memory(async_pool_buffer const& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::async_pool_buffer");
    return buffer.span();
  }

 private:
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, std::optional<memory_pool_ref> pool,
                    std::source_location const& where)
      : memory_(detail::allocate_elements<T>(
                    count, "async_pool_buffer", pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync",
                    [&](void** memory, std::size_t bytes) {
                      return pool ? cudaMallocFromPoolAsync(memory, bytes, pool->get(), stream.get())
                                  : cudaMallocAsync(memory, bytes, stream.get());
                    },
                    where, [&] { return describe_pool(pool); }),
                detail::free_on_stream{stream.get(), {}})
  {
    if (!empty()) {
      detail::debug::note_access(data(), size_bytes(), stream.get(), detail::debug::access::write, where);
    }
  }

  using memory_handle = detail::unique_handle<detail::owned_elements<T>, detail::free_on_stream>;

  template <class, class>
  friend class async_pool_buffer;  // a transfer keeps the resource of the buffer it takes over

  /// The rules of a borrowed resource, each with its own message; once one has fired, nothing
  /// else is instantiated, so it is the only error.
  template <class Resource>
  static memory_handle borrow_and_allocate(std::size_t count, stream_view<Tag> stream, Resource&& resource,
                                           std::source_location const& where)
  {
    using R = std::remove_reference_t<Resource>;
    if constexpr (!detail::allocates_on_streams<R>) {
      static_assert(detail::dependent_false<R>,
                    "umsync: async_pool_buffer takes its memory from a stream-ordered resource, which allocates "
                    "and frees on the buffer's stream (umsync::stream_ordered_resource: CCCL 3.1's "
                    "allocate(stream, bytes, alignment) and deallocate(stream, p, bytes, alignment), CCCL 3.0's "
                    "allocate_async and deallocate_async); a synchronous resource cannot order its free after "
                    "the buffer's work");
      return {};
    } else if constexpr (!detail::device_accessible_resource<R>) {
      static_assert(detail::dependent_false<R>,
                    "umsync: async_pool_buffer holds device memory, so its resource must be device_accessible: "
                    "it says so with friend void get_property(R const&, cuda::mr::device_accessible) noexcept {}");
      return {};
    } else if constexpr (detail::is_resource_ref<std::remove_cv_t<R>>) {
      // A CCCL reference, perhaps a temporary one: kept as a copy, like a device_resource_ref.
      device_resource_ref ref(resource);
      return allocate_from_resource(count, stream, ref, detail::borrowed_resource(ref),
                                    "the resource of a cuda::mr resource reference", where);
    } else if constexpr (!std::is_lvalue_reference_v<Resource>) {
      static_assert(detail::dependent_false<R>,
                    "umsync: async_pool_buffer borrows its resource, which must outlive the buffer (as for RMM's "
                    "device_buffer), and a temporary dies first: name the resource as a variable, or pass a "
                    "umsync::device_resource_ref to one");
      return {};
    } else {
      return allocate_from_resource(count, stream, resource, detail::borrowed_resource(resource),
                                    detail::pretty_type_name_v<std::remove_cv_t<R>>, where);
    }
  }

  /// `count` elements from `resource` on `stream`, through the one allocation path
  /// (allocate_elements: overflow, zero elements, bad_alloc naming `name`, the debug checker).
  template <class Resource>
  static memory_handle allocate_from_resource(std::size_t count, stream_view<Tag> stream, Resource& resource,
                                              detail::borrowed_resource borrowed, std::string_view name,
                                              std::source_location const& where)
  {
    return memory_handle(detail::allocate_elements<T>(
                             count, "async_pool_buffer", name,
                             [&](void** memory, std::size_t bytes) {
                               return detail::allocate_or_report(resource, stream.get(), bytes, *memory, name, where);
                             },
                             where,
                             [] { return std::string("a stream-ordered resource: it returned a null pointer"); }),
                         detail::free_on_stream{stream.get(), borrowed});
  }

  void note_first_write(std::source_location const& where)
  {
    if (!empty()) {
      detail::debug::note_access(data(), size_bytes(), stream().get(), detail::debug::access::write, where);
    }
  }

  static std::string describe_pool(std::optional<memory_pool_ref> const& pool)
  {
    try {
      memory_pool_ref const ref = pool ? *pool : memory_pool_ref::device_default(current_device());
      return "pool reserved " + std::to_string(ref.reserved_bytes()) + " B, used " + std::to_string(ref.used_bytes()) +
             " B";
    } catch (cuda_error const&) {
      return "pool state unreadable";
    }
  }

  detail::unique_handle<detail::owned_elements<T>, detail::free_on_stream> memory_;
};

UMSYNC_NAMESPACE_END
