// umsync/memory/async_pool_buffer.hpp: device memory that lives on one stream.
//
//   umsync::stream<compute> s;
//   umsync::async_pool_buffer<float, compute> x(n, s);           // cudaMallocAsync on s
//   umsync::async_pool_buffer<float, compute> y(n, s, pool);     // from a memory_pool
//   umsync::launch(s, cfg, kernel, x, y);                         // fine: same tag
//
// The buffer is bound to its stream's tag: using it on a stream with another tag does not
// compile, and the only way across is a stream_edge's transfer (stream_edge.hpp), which orders
// the streams with an event and rebinds the buffer. It is freed (cudaFreeAsync) on the stream it
// is bound to when destroyed, so the free is ordered after the work that used it there.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <optional>
#include <source_location>
#include <string>
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

/// Frees pool memory on the stream it is bound to (cudaFreeAsync), after telling the
/// UMSYNC_DEBUG checker, whose finding goes to the destructor handler: a free cannot throw.
struct free_on_stream {
  cudaStream_t stream = nullptr;
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
    report_in_destructor(cudaFreeAsync(memory.data, stream), "cudaFreeAsync");
  }
};

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

  /// `count` elements from `pool`, bound to `stream`.
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, memory_pool_ref pool,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(count, stream, std::optional<memory_pool_ref>(pool), where)
  {}

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
  /// ordered `stream` after `other`'s stream (the key proves it).
  template <class OtherTag>
  async_pool_buffer(rebind_key key, async_pool_buffer<T, OtherTag>&& other, stream_view<Tag> stream) noexcept
      : memory_(std::move(other).release_memory(key), detail::free_on_stream{stream.get()})
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
                detail::free_on_stream{stream.get()})
  {
    if (!empty()) {
      detail::debug::note_access(data(), size_bytes(), stream.get(), detail::debug::access::write, where);
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
