// umsync/memory/async_pool_buffer.hpp: device memory that lives on one stream.
//
//   umsync::stream<compute> s;
//   umsync::async_pool_buffer<float, compute> x(n, s);           // cudaMallocAsync on s
//   umsync::async_pool_buffer<float, compute> y(n, s, pool);     // from a memory_pool
//   umsync::launch(s, cfg, kernel, x, y);                         // fine: same tag
//
// The buffer is bound to its stream's tag: using it on a stream with another tag does not
// compile, and the only way across is umsync::stream_dependency::transfer, which orders the
// streams with an event and rebinds the buffer. It is freed (cudaFreeAsync) on the stream it
// is bound to when destroyed, so the free is ordered after the work that used it there.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/ordering_checker.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <cstdio>
#include <limits>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

template <class From, class To>
class stream_dependency;
template <class From, class To>
class deferred_edge;

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
  {
  }

  /// `count` elements from `pool`, bound to `stream`.
  async_pool_buffer(std::size_t count, stream_view<Tag> stream, memory_pool_ref pool,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(count, stream, std::optional<memory_pool_ref>(pool), where)
  {
  }

  /// A deep copy of `other` on `stream`, which names where the copy is ordered.
  async_pool_buffer(async_pool_buffer const& other, stream_view<Tag> stream,
                    std::source_location where = std::source_location::current())
      : async_pool_buffer(other.size_, stream, where)
  {
    if (size_ != 0) {
      detail::debug::note_access(other.data_, stream_.get(), detail::debug::access::read, where);
      check(cudaMemcpyAsync(data_, other.data_, size_bytes(), cudaMemcpyDeviceToDevice, stream_),
            "cudaMemcpyAsync (async_pool_buffer deep copy)", where);
    }
  }

  /// Copies would free the same memory twice, and a deep copy must say on which stream it is
  /// ordered: use async_pool_buffer(other, stream). Declared (not deleted) only so that a copy
  /// fails with this message; the body is instantiated, and rejected, only where a copy is
  /// attempted. (std::is_copy_constructible therefore reports true.)
  async_pool_buffer(async_pool_buffer const& other)  // NOLINT: exists to reject copies with a message
      : stream_(other.stream_)
  {
    static_assert(detail::dependent_false<T>,
                  "umsync: buffers are move-only; a deep copy names its stream: async_pool_buffer(other, stream)");
  }
  async_pool_buffer& operator=(async_pool_buffer const&) = delete;

  async_pool_buffer(async_pool_buffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), stream_(other.stream_)
  {
  }
  async_pool_buffer& operator=(async_pool_buffer&& other) noexcept
  {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      stream_ = other.stream_;
    }
    return *this;
  }
  ~async_pool_buffer() { release(); }

  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] T const* data() const noexcept { return data_; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  /// The stream the buffer is bound to: where it is freed.
  [[nodiscard]] stream_view<Tag> stream() const noexcept { return stream_; }

  [[nodiscard]] device_span<T, Tag> span() noexcept { return device_span<T, Tag>::adopt(data_, size_); }
  [[nodiscard]] device_span<T const, Tag> span() const noexcept
  {
    return device_span<T const, Tag>::adopt(data_, size_);
  }

 private:
  template <class, class>
  friend class stream_dependency;
  template <class, class>
  friend class deferred_edge;
  template <class, class>
  friend class async_pool_buffer;

  async_pool_buffer(std::size_t count, stream_view<Tag> stream, std::optional<memory_pool_ref> pool,
                    std::source_location const& where)
      : size_(count), stream_(stream)
  {
    if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
      throw std::length_error("umsync: async_pool_buffer of " + std::to_string(count) + " elements of " +
                              std::to_string(sizeof(T)) + " bytes overflows size_t");
    }
    if (count == 0) {
      return;
    }
    void* memory = nullptr;
    cudaError_t const status = pool ? cudaMallocFromPoolAsync(&memory, size_bytes(), pool->get(), stream_)
                                    : cudaMallocAsync(&memory, size_bytes(), stream_);
    if (status == cudaErrorMemoryAllocation) {
      static_cast<void>(cudaGetLastError());
      throw bad_alloc(size_bytes(), pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync", describe_pool(pool), where);
    }
    check(status, pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync", where);
    data_ = static_cast<T*>(memory);
    detail::debug::note_access(data_, stream_.get(), detail::debug::access::write, where);
  }

  /// Takes over memory that `other` allocated, now bound to `stream` (a transfer).
  template <class OtherTag>
  async_pool_buffer(async_pool_buffer<T, OtherTag>&& other, stream_view<Tag> stream) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), stream_(stream)
  {
  }

  static std::string describe_pool(std::optional<memory_pool_ref> const& pool)
  {
    memory_pool_ref const ref = pool ? *pool : memory_pool_ref::device_default(current_device());
    try {
      return "pool reserved " + std::to_string(ref.reserved_bytes()) + " B, used " + std::to_string(ref.used_bytes()) +
             " B";
    } catch (cuda_error const&) {
      return "pool state unreadable";
    }
  }

  void release() noexcept
  {
    if (data_ != nullptr) {
      try {
        detail::debug::note_access(data_, stream_.get(), detail::debug::access::free, std::source_location::current());
      } catch (ordering_error const& e) {
        // A destructor cannot throw: report the unordered free, then free as asked.
        std::fprintf(stderr, "%s (in a destructor; not thrown)\n", e.what());
      }
      detail::report_in_destructor(cudaFreeAsync(data_, stream_), "cudaFreeAsync");
      data_ = nullptr;
      size_ = 0;
    }
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  stream_view<Tag> stream_;
};

UMSYNC_NAMESPACE_END
