// umsync/memory/stream_buffer.hpp: device memory that lives on one stream.
//
//   umsync::stream<compute> s;
//   umsync::stream_buffer<float, compute> x(n, s);         // cudaMallocAsync on s
//   umsync::stream_buffer<float, compute> y(n, s, pool);   // from a memory_pool
//   umsync::stream_buffer<float, compute> z(n, s, arena);  // from any stream-ordered resource
//   umsync::launch(s, cfg, kernel, x, y, z);                // fine: same tag
//
// What defines it is the stream, not where the memory comes from (the current pool, a
// memory_pool, any stream-ordered resource). The buffer is bound to its stream's tag: using it on a stream with another tag does not
// compile, and the only way across is a stream_edge's transfer (stream_edge.hpp), which orders
// the streams with an event and rebinds the buffer. It is freed (cudaFreeAsync) on the stream it
// is bound to when destroyed, so the free is ordered after the work that used it there.
//
// A buffer may also take its memory from a cuda::mr resource (resource.hpp): any lvalue that
// models stream_ordered_resource (RMM's, CCCL's, a user's), or a device_resource_ref such as
// rmm::mr::get_current_device_resource_ref(). The buffer borrows the resource: it must outlive
// the buffer. (RMM's device_buffer does not borrow: since RMM 26.x it holds a
// cuda::mr::any_resource, an owning copy of its resource; to make one refer to a resource instead,
// pass it a device_resource_ref.) The memory is asked for 256-aligned, ordered on the
// buffer's stream, and given back to the same resource on the stream the buffer is bound to
// then (after a transfer, the new one). A resource that is synchronous only, whose memory is not
// device accessible, or that is a temporary is refused at compile time; a resource that runs out
// (throws std::bad_alloc, or returns null) gives umsync::bad_alloc naming it.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/resource_properties.hpp>
#include <umsync/detail/type_name.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/detail/free_on_stream.hpp>
#include <umsync/memory/detail/rebind_key.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <concepts>
#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

template <class T, class Tag = untagged>
class stream_buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "umsync: stream_buffer holds trivially copyable elements only (device memory is copied bytewise)");

 public:
  using value_type = T;
  using bound_tag_type = Tag;

  /// `count` elements from the current device's current pool (cudaMallocAsync), bound to
  /// `stream`. Size 0 allocates nothing.
  stream_buffer(std::size_t count, stream_view<Tag> stream,
                std::source_location where = std::source_location::current())
      : stream_buffer(count, stream, static_cast<memory_pool_ref const*>(nullptr), where)
  {}

  /// `count` elements from `pool`, bound to `stream`. A temporary memory_pool does not convert
  /// (memory_pool.hpp): it would be destroyed while the buffer lives.
  stream_buffer(std::size_t count, stream_view<Tag> stream, memory_pool_ref pool,
                std::source_location where = std::source_location::current())
      : stream_buffer(count, stream, static_cast<memory_pool_ref const*>(&pool), where)
  {}

  /// `count` elements from `resource`, a stream-ordered resource of device-accessible memory
  /// (resource.hpp: RMM's, CCCL's, a user's), allocated 256-aligned on `stream` and given back
  /// to it on the stream the buffer is bound to then; or from the resource a device_resource_ref
  /// (e.g. rmm::mr::get_current_device_resource_ref()) or another CCCL reference refers to, kept
  /// as a copy. The buffer borrows `resource`, which must
  /// outlive it. (A memory_pool or memory_pool_ref takes the constructor above.) A resource that
  /// is not stream-ordered, not device accessible, or a temporary, is refused at compile time.
  /// Needs memory/resource.hpp (the concepts), which the translation unit includes.
  template <class Resource>
    // memory_pool and memory_pool_ref take cudaMallocFromPoolAsync (a temporary memory_pool is
    // refused there)
    requires(!std::is_convertible_v<Resource, memory_pool_ref> &&
             !std::is_same_v<std::remove_cvref_t<Resource>, memory_pool> &&
             !std::is_same_v<std::remove_cvref_t<Resource>, std::source_location>)
  stream_buffer(std::size_t count, stream_view<Tag> stream, Resource&& resource,
                std::source_location where = std::source_location::current())
      : memory_(borrow_and_allocate(count, stream, std::forward<Resource>(resource), where))
  {
    note_first_write(where);
  }

  /// A deep copy of `other` on `stream`, which names where the copy is ordered.
  stream_buffer(stream_buffer const& other, stream_view<Tag> stream,
                std::source_location where = std::source_location::current())
      : stream_buffer(other.size(), stream, where)
  {
    other.memory_.debug_check_not_moved_from("umsync::stream_buffer (the source of a deep copy)");
    if (!empty()) {
      detail::debug::note_access(other.data(), other.size_bytes(), stream.get(), detail::debug::access::read, where);
      check(cudaMemcpyAsync(data(), other.data(), size_bytes(), cudaMemcpyDeviceToDevice, stream.get()),
            "cudaMemcpyAsync (stream_buffer deep copy)", where);
    }
  }

  /// A buffer is bound to the stream it is allocated on (or deep-copied on), so its Tag is
  /// that stream's; this overload exists to say so when they differ.
  template <class CountOrSource, stream_handle Stream, class... Rest>
    requires(!std::is_convertible_v<Stream const&, stream_view<Tag>> &&
             (std::is_convertible_v<CountOrSource, std::size_t> ||
              std::is_same_v<std::remove_cvref_t<CountOrSource>, stream_buffer>))
  stream_buffer(CountOrSource&&, Stream const&, Rest&&...)  // NOLINT: exists to reject with a message
  {
    static_assert(detail::dependent_false<Stream>,
                  "umsync: a stream_buffer<T, Tag> is bound to the stream it is allocated on, and that "
                  "stream has another tag; write stream_buffer<T, StreamTag>, or allocate on the Tag stream "
                  "and cross with a stream_edge's transfer");
  }

  /// Copies would free the same memory twice, and a deep copy must say on which stream it is
  /// ordered: use stream_buffer(other, stream). Declared (not deleted) only so that a copy
  /// fails with this message; the body is instantiated, and rejected, only where a copy is
  /// attempted. (std::is_copy_constructible therefore reports true.)
  stream_buffer(stream_buffer const& other)  // NOLINT: exists to reject copies with a message
  {
    static_cast<void>(other);
    static_assert(detail::dependent_false<T>,
                  "umsync: buffers are move-only; a deep copy names its stream: stream_buffer(other, stream)");
  }
  stream_buffer& operator=(stream_buffer const&) = delete;
  stream_buffer(stream_buffer&&) noexcept = default;
  stream_buffer& operator=(stream_buffer&&) noexcept = default;
  ~stream_buffer() = default;

  /// Takes over `other`'s memory, now bound to `stream`: a stream_edge's transfer, which has
  /// ordered `stream` after `other`'s stream (the key proves it). The memory still goes back to
  /// the resource it came from, now on `stream`.
  template <class OtherTag>
  stream_buffer(detail::rebind_key key, stream_buffer<T, OtherTag>&& other, stream_view<Tag> stream) noexcept
      : memory_(std::move(other).release_memory(key),
                detail::free_on_stream{stream.get(), other.memory_.releaser().resource})
  {}

  /// Gives up the memory without freeing it (for a stream_edge's transfer).
  [[nodiscard]] detail::owned_elements<T> release_memory(detail::rebind_key) && noexcept { return memory_.release(); }

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
  friend device_span<T, Tag> umsync_memory(stream_buffer& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::stream_buffer");
    return buffer.span();
  }
  friend device_span<T const, Tag> umsync_memory(stream_buffer const& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::stream_buffer");
    return buffer.span();
  }

 private:
  /// From `*pool`, or from the current pool (cudaMallocAsync) when `pool` is null.
  stream_buffer(std::size_t count, stream_view<Tag> stream, memory_pool_ref const* pool,
                std::source_location const& where)
      : memory_(detail::allocate_elements<T>(
                    count, "stream_buffer", pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync",
                    [&](void** memory, std::size_t bytes) {
                      return pool ? cudaMallocFromPoolAsync(memory, bytes, pool->get(), stream.get())
                                  : cudaMallocAsync(memory, bytes, stream.get());
                    },
                    where, [&] { return detail::pool_calls::describe_state(pool ? pool->get() : nullptr); }),
                detail::free_on_stream{stream.get(), {}})
  {
    if (!empty()) {
      detail::debug::note_access(data(), size_bytes(), stream.get(), detail::debug::access::write, where);
    }
  }

  using memory_handle = detail::unique_handle<detail::owned_elements<T>, detail::free_on_stream>;

  template <class, class>
  friend class stream_buffer;  // a transfer keeps the resource of the buffer it takes over

  /// The rules of a borrowed resource, each with its own message; once one has fired, nothing
  /// else is instantiated, so it is the only error.
  template <class Resource>
  static memory_handle borrow_and_allocate(std::size_t count, stream_view<Tag> stream, Resource&& resource,
                                           std::source_location const& where)
  {
    using R = std::remove_reference_t<Resource>;
    if constexpr (!detail::resource_interop_included<R>) {
      static_assert(detail::dependent_false<R>,
                    "umsync: a stream_buffer made from a memory resource needs "
                    "#include <umsync/memory/resource.hpp> (the cuda::mr concepts, which the buffer header "
                    "leaves out so that code without resources does not compile them)");
      return {};
    } else if constexpr (
        std::is_same_v<std::remove_cv_t<R>, typename detail::resource_interop<std::remove_cv_t<R>>::reference>) {
      // A device_resource_ref, perhaps a temporary or const one: kept as a copy.
      typename detail::resource_interop<std::remove_cv_t<R>>::reference ref(resource);
      return allocate_from_resource(count, stream, ref, detail::borrowed_resource::copy_of(ref),
                                    "the resource of a umsync::device_resource_ref", where);
    } else if constexpr (!detail::resource_interop<R>::allocates_on_streams) {
      static_assert(detail::dependent_false<R>,
                    "umsync: stream_buffer takes its memory from a stream-ordered resource, which allocates "
                    "and frees on the buffer's stream (umsync::stream_ordered_resource: CCCL 3.1's "
                    "allocate(stream, bytes, alignment) and deallocate(stream, p, bytes, alignment), CCCL 3.0's "
                    "allocate_async and deallocate_async); a synchronous resource cannot order its free after "
                    "the buffer's work");
      return {};
    } else if constexpr (!detail::resource_interop<R>::device_accessible) {
      static_assert(detail::dependent_false<R>,
                    "umsync: stream_buffer holds device memory, so its resource must be device_accessible: "
                    "it says so with friend void get_property(R const&, cuda::mr::device_accessible) noexcept {}");
      return {};
    } else if constexpr (detail::resource_interop<R>::is_reference) {
      // Another CCCL reference, perhaps a temporary one: kept as a copy, a device_resource_ref.
      typename detail::resource_interop<R>::reference ref(resource);
      return allocate_from_resource(count, stream, ref, detail::borrowed_resource::copy_of(ref),
                                    "the resource of a cuda::mr resource reference", where);
    } else if constexpr (!std::is_lvalue_reference_v<Resource>) {
      static_assert(detail::dependent_false<R>,
                    "umsync: stream_buffer borrows its resource (it holds no owning copy, unlike RMM's "
                    "device_buffer and its cuda::mr::any_resource), so the resource must outlive the buffer and a "
                    "temporary dies first: name the resource as a variable, or wrap a named one in a "
                    "umsync::device_resource_ref to pass a reference");
      return {};
    } else {
      return allocate_from_resource(count, stream, resource, detail::borrowed_resource::object(resource),
                                    detail::pretty_type_name_v<std::remove_cv_t<R>>, where);
    }
  }

  /// `count` elements from `resource` on `stream`, through the one allocation path
  /// (allocate_elements: overflow, zero elements, bad_alloc naming `name`, the debug checker).
  template <class Resource>
  static memory_handle allocate_from_resource(std::size_t count, stream_view<Tag> stream, Resource& resource,
                                              detail::borrowed_resource borrowed, detail::text_view name,
                                              std::source_location const& where)
  {
    return memory_handle(
        detail::allocate_elements<T>(
            count, "stream_buffer", name,
            [&](void** memory, std::size_t bytes) {
              return detail::resource_interop<Resource>::allocate(resource, stream.get(), bytes, *memory, name, where);
            },
            where, [] { return detail::text_view("a stream-ordered resource: it returned a null pointer"); }),
        detail::free_on_stream{stream.get(), borrowed});
  }

  void note_first_write(std::source_location const& where)
  {
    if (!empty()) {
      detail::debug::note_access(data(), size_bytes(), stream().get(), detail::debug::access::write, where);
    }
  }

  detail::unique_handle<detail::owned_elements<T>, detail::free_on_stream> memory_;
};

/// Deprecated since 0.2.0, removed in 0.3.0: the buffer's name before stream_buffer, which says
/// what defines it (the stream it is bound to) rather than one source of its memory. The same
/// type, so code that names it passes its buffers to code that names stream_buffer.
template <class T, class Tag = untagged>
using async_pool_buffer [[deprecated("umsync: async_pool_buffer is deprecated (removed in 0.3.0): write "
                                     "umsync::stream_buffer<T, Tag>, the same type")]] = stream_buffer<T, Tag>;

UMSYNC_NAMESPACE_END
