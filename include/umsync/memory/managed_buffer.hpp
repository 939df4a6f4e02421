// umsync/memory/managed_buffer.hpp: an owner of unified (managed) memory.
//
//   umsync::managed_buffer<float> w(n);                              // cudaMallocManaged, attach global
//   w.advise(umsync::advice::preferred_location{umsync::managed_location::device(0)});
//   w.prefetch(umsync::managed_location::device(0), s);              // stream-ordered migration
//   umsync::launch(s, cfg, kernel, w.span());
//   w.prefetch(umsync::managed_location::host(), s);  s.synchronize();  use(w[0]);
//
// Its advice and prefetch members are memory/managed_memory.hpp's free functions on its memory,
// with the same rules (managed memory only; refused on a capturing stream).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/managed_memory.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <optional>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// Releases managed memory: cudaFreeAsync on the stream of a pool allocation, else cudaFree.
struct free_managed {
  cudaStream_t pool_stream = nullptr;
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    debug::note_freed(memory.data);
    if (pool_stream != nullptr) {
      report_in_destructor(cudaFreeAsync(memory.data, pool_stream), "cudaFreeAsync (managed pool)");
    } else {
      report_in_destructor(cudaFree(memory.data), "cudaFree (managed)");
    }
  }
};

}  // namespace detail

/// `count` elements of managed memory (cudaMallocManaged), freed with cudaFree. Move-only.
/// Host code may index it directly; device work reaches it through span().
template <class T>
class managed_buffer {
  static_assert(std::is_trivially_copyable_v<T>,
                "umsync: managed_buffer holds trivially copyable elements only (pages migrate bytewise)");

 public:
  using value_type = T;

  /// Allocates on the current device. A device without managed memory throws
  /// managed_memory_unsupported; an allocation failure throws umsync::bad_alloc.
  explicit managed_buffer(std::size_t count, managed_attach attach = managed_attach::global,
                          std::source_location where = std::source_location::current())
      : memory_(allocate(count, nullptr, where, [&](void** memory, std::size_t bytes) {
          unsigned const flags = attach == managed_attach::host ? cudaMemAttachHost : cudaMemAttachGlobal;
          return cudaMallocManaged(memory, bytes, flags);
        }))
  {}

  /// Allocates in stream order on `stream` from the device's default *managed* pool (CUDA 13:
  /// cudaMemGetDefaultMemPool with cudaMemAllocationTypeManaged); freed with cudaFreeAsync on
  /// the same stream, which must outlive the buffer. Use it only after `stream` reaches it.
  template <stream_handle Stream>
  managed_buffer(std::size_t count, Stream const& stream, std::source_location where = std::source_location::current())
      : memory_(allocate(count, stream.get(), where, [&](void** memory, std::size_t bytes) {
          cudaMemPool_t pool = nullptr;
          cudaMemLocation location{cudaMemLocationTypeDevice, current_device(where)};
          check(cudaMemGetDefaultMemPool(&pool, &location, cudaMemAllocationTypeManaged),
                "cudaMemGetDefaultMemPool(cudaMemAllocationTypeManaged)", where);
          return cudaMallocFromPoolAsync(memory, bytes, pool, stream.get());
        }))
  {
    forbid_in_capture<capture_unsafe::managed_allocation, Stream>();
  }

  managed_buffer(managed_buffer const&) = delete;
  managed_buffer& operator=(managed_buffer const&) = delete;
  managed_buffer(managed_buffer&&) noexcept = default;
  managed_buffer& operator=(managed_buffer&&) noexcept = default;
  ~managed_buffer() = default;

  [[nodiscard]] T* data() noexcept { return memory_.get().data; }
  [[nodiscard]] T const* data() const noexcept { return memory_.get().data; }
  [[nodiscard]] std::size_t size() const noexcept { return memory_.get().size; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size() * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return memory_.empty(); }
  /// True when the memory came from the default managed pool (stream-ordered).
  [[nodiscard]] bool from_pool() const noexcept { return memory_.releaser().pool_stream != nullptr; }

  /// Host access: the caller orders it after device work that touches the buffer.
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data()[i]; }
  [[nodiscard]] T const& operator[](std::size_t i) const noexcept { return data()[i]; }
  [[nodiscard]] T* begin() noexcept { return data(); }
  [[nodiscard]] T* end() noexcept { return data() + size(); }
  [[nodiscard]] T const* begin() const noexcept { return data(); }
  [[nodiscard]] T const* end() const noexcept { return data() + size(); }

  [[nodiscard]] managed_span<T> span() noexcept { return managed_span<T>::adopt(data(), size()); }
  [[nodiscard]] managed_span<T const> span() const noexcept { return managed_span<T const>::adopt(data(), size()); }

  /// The memory protocol (memory_range.hpp): managed memory, on any stream. UMSYNC_DEBUG builds
  /// refuse a moved-from buffer with usage_error.
  friend managed_span<T> umsync_memory(managed_buffer& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::managed_buffer");
    return buffer.span();
  }
  friend managed_span<T const> umsync_memory(managed_buffer const& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::managed_buffer");
    return buffer.span();
  }

  template <memory_advice Advice>
  void advise(Advice const& given, std::source_location where = std::source_location::current()) const
  {
    detail::apply_advice(data(), size_bytes(), given, true, where);
  }
  template <memory_advice Advice>
  void unadvise(Advice const& given, std::source_location where = std::source_location::current()) const
  {
    detail::apply_advice(data(), size_bytes(), given, false, where);
  }

  /// Migrates the whole buffer to `to`, in order on `stream`.
  template <stream_handle Stream>
  void prefetch(managed_location to, Stream const& stream,
                std::source_location where = std::source_location::current()) const
  {
    detail::prefetch_range(data(), size_bytes(), to, stream, where);
  }
  /// Migrates elements [first, first + count) to `to`, in order on `stream`.
  template <stream_handle Stream>
  void prefetch(std::size_t first, std::size_t count, managed_location to, Stream const& stream,
                std::source_location where = std::source_location::current()) const
  {
    if (first > size() || count > size() - first) {
      throw out_of_range("prefetch of elements [", first, ", ", first, " + ", count, ") of a managed_buffer of ",
                         size());
    }
    detail::prefetch_range(data() + first, count * sizeof(T), to, stream, where);
  }

  /// Restricts which work may access the buffer (cudaStreamAttachMemAsync, whole allocation).
  /// Not for pool allocations: the runtime attaches whole cudaMallocManaged allocations only.
  template <stream_handle Stream>
  void attach(Stream const& stream, stream_attach mode, std::source_location where = std::source_location::current())
  {
    forbid_in_capture<capture_unsafe::attach_memory, Stream>();
    if (from_pool()) {
      throw usage_error("cudaStreamAttachMemAsync on a managed_buffer from a memory pool: only cudaMallocManaged "
                        "allocations can be attached");
    }
    if (empty()) {
      return;
    }
    check_not_capturing(stream.get(), "cudaStreamAttachMemAsync", where);
    constexpr unsigned flags[] = {cudaMemAttachSingle, cudaMemAttachHost, cudaMemAttachGlobal};  // stream_attach order
    check(cudaStreamAttachMemAsync(stream.get(), data(), 0, flags[static_cast<int>(mode)]), "cudaStreamAttachMemAsync",
          where);
  }

  /// What is in force now (cudaMemRangeGetAttribute). An empty buffer has no advice.
  [[nodiscard]] bool read_mostly(std::source_location where = std::source_location::current()) const
  {
    return !empty() && detail::range_attribute<int>(data(), size_bytes(), cudaMemRangeAttributeReadMostly, where) != 0;
  }
  /// The preferred location all pages share, nullopt when none (or they differ).
  [[nodiscard]] std::optional<managed_location> preferred_location(
      std::source_location where = std::source_location::current()) const
  {
    return detail::range_location(data(), size_bytes(), cudaMemRangeAttributePreferredLocationType,
                                  cudaMemRangeAttributePreferredLocationId, where);
  }
  /// Where all pages were last prefetched to, nullopt when never (or not all to one place).
  /// Says what was asked, not whether the migration has run yet.
  [[nodiscard]] std::optional<managed_location> last_prefetch_location(
      std::source_location where = std::source_location::current()) const
  {
    return detail::range_location(data(), size_bytes(), cudaMemRangeAttributeLastPrefetchLocationType,
                                  cudaMemRangeAttributeLastPrefetchLocationId, where);
  }
  /// True when `device` has accessed-by advice over the whole buffer.
  [[nodiscard]] bool accessed_by(int device, std::source_location where = std::source_location::current()) const
  {
    if (empty()) {
      return false;
    }
    int devices[64];  // unused slots read cudaInvalidDeviceId
    check(cudaMemRangeGetAttribute(devices, sizeof devices, cudaMemRangeAttributeAccessedBy, data(), size_bytes()),
          "cudaMemRangeGetAttribute(AccessedBy)", where);
    for (int const listed : devices) {
      if (listed == device) {
        return true;
      }
    }
    return false;
  }

 private:
  /// Checks that the device has what the allocation needs (managed memory, and a managed pool
  /// when `pool_stream` is set), then allocates through the one allocation path.
  using owned_memory = detail::unique_handle<detail::owned_elements<T>, detail::free_managed>;

  template <class Allocate>
  static owned_memory allocate(std::size_t count, cudaStream_t pool_stream, std::source_location const& where,
                               Allocate&& allocate_call)
  {
    int const device = current_device(where);
    device_capabilities const& device_has = capabilities(device, where);
    if (!device_has.managed_memory || (pool_stream != nullptr && !device_has.memory_pools)) {
      throw managed_memory_unsupported(pool_stream != nullptr
                                           ? "stream-ordered managed allocation (a managed memory pool)"
                                           : "managed memory (cudaMallocManaged)",
                                       device);
    }
    if (count != 0 && pool_stream == nullptr) {
      check_not_capturing("cudaMallocManaged", where);
    }
    char const* const call = pool_stream != nullptr ? "cudaMallocFromPoolAsync (default managed pool)"
                                                    : "cudaMallocManaged";
    return owned_memory(detail::allocate_elements<T>(count, "managed_buffer", call, allocate_call, where),
                        detail::free_managed{pool_stream});
  }

  owned_memory memory_;
};

UMSYNC_NAMESPACE_END
