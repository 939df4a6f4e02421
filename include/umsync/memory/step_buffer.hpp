// umsync/memory/step_buffer.hpp: one interface, two memory policies, so replacing managed
// memory by explicit device memory is a one-word change.
//
//   umsync::step_buffer<float, umsync::managed> x(n);      // managed memory, prefetched
//   umsync::step_buffer<float, umsync::device_only> x(n);  // device memory + pinned staging
//   fill(x.host());  x.to_device(s);  umsync::launch(s, cfg, kernel, x.device());
//   x.to_host(s);  s.synchronize();  read(x.host());
//
// managed: host() and device() view the same managed pages; to_device / to_host prefetch
// them (a fault-free migration instead of page faults). device_only: device() is cudaMalloc
// memory, host() a pinned staging copy; to_device / to_host are async copies on the copy
// engines. Either way the host reads host() only after to_host's stream has finished, and
// device work uses device() only after to_device on its stream. Neither runs on a capturing
// stream (prefetch cannot be captured; the rule is the same for both so the swap is free).
#pragma once

#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/pinned_buffer.hpp>

#include <cstddef>
#include <source_location>
#include <span>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// Policy: one managed allocation, moved by prefetch.
struct managed {};
/// Policy: device memory for kernels, pinned host memory for the host, moved by copies.
struct device_only {};

namespace detail {

/// cudaFree for memory from cudaMalloc (not stream-ordered, like the managed allocation the
/// device_only policy replaces).
struct free_device {
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    debug::note_freed(memory.data);
    report_in_destructor(cudaFree(memory.data), "cudaFree");
  }
};

}  // namespace detail

template <class T, class Policy>
class step_buffer {
  static_assert(std::is_same_v<Policy, managed> || std::is_same_v<Policy, device_only>,
                "umsync: a step_buffer's policy is umsync::managed or umsync::device_only");
};

template <class T>
class step_buffer<T, managed> {
 public:
  using value_type = T;
  using policy_type = managed;

  explicit step_buffer(std::size_t count, std::source_location where = std::source_location::current())
      : memory_(count, managed_attach::global, where), device_(current_device(where))
  {}

  [[nodiscard]] std::size_t size() const noexcept { return memory_.size(); }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return memory_.size_bytes(); }
  /// The device the buffer was made on: where to_device prefetches.
  [[nodiscard]] int device_ordinal() const noexcept { return device_; }

  [[nodiscard]] std::span<T> host() noexcept { return {memory_.data(), memory_.size()}; }
  [[nodiscard]] std::span<T const> host() const noexcept { return {memory_.data(), memory_.size()}; }
  /// The memory for device work (UMSYNC_DEBUG builds: usage_error on a moved-from step_buffer).
  [[nodiscard]] managed_span<T> device() noexcept(!debug_build) { return memory_of(memory_); }
  [[nodiscard]] managed_span<T const> device() const noexcept(!debug_build) { return memory_of(memory_); }

  /// Prefetches the pages to the device. Without concurrent managed access the runtime does
  /// not prefetch to a device (pages move at the next launch), so nothing is queued there.
  template <stream_handle Stream>
  void to_device(Stream const& stream, std::source_location where = std::source_location::current())
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    if (capabilities(device_, where).concurrent_managed_access) {
      memory_.prefetch(managed_location::device(device_), stream, where);
    }
  }
  /// Prefetches the pages to the host; read host() after `stream` has finished.
  template <stream_handle Stream>
  void to_host(Stream const& stream, std::source_location where = std::source_location::current())
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    if (capabilities(device_, where).concurrent_managed_access) {
      memory_.prefetch(managed_location::host(), stream, where);
    }
  }

  /// The managed allocation, for advice and queries.
  [[nodiscard]] managed_buffer<T>& allocation() noexcept { return memory_; }

 private:
  managed_buffer<T> memory_;
  int device_;
};

template <class T>
class step_buffer<T, device_only> {
 public:
  using value_type = T;
  using policy_type = device_only;

  explicit step_buffer(std::size_t count, std::source_location where = std::source_location::current())
      : device_memory_(detail::allocate_elements<T>(
            count, "step_buffer", "cudaMalloc",
            [](void** memory, std::size_t bytes) { return cudaMalloc(memory, bytes); }, where)),
        staging_(count, where),
        device_(current_device(where))
  {}

  [[nodiscard]] std::size_t size() const noexcept { return staging_.size(); }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return staging_.size() * sizeof(T); }
  [[nodiscard]] int device_ordinal() const noexcept { return device_; }

  [[nodiscard]] std::span<T> host() noexcept { return {staging_.data(), staging_.size()}; }
  [[nodiscard]] std::span<T const> host() const noexcept { return {staging_.data(), staging_.size()}; }
  /// The memory for device work (UMSYNC_DEBUG builds: usage_error on a moved-from step_buffer).
  [[nodiscard]] device_span<T> device() noexcept(!debug_build)
  {
    device_memory_.debug_check_not_moved_from("umsync::step_buffer");
    return device_span<T>::adopt(device_memory_.get().data, size());
  }
  [[nodiscard]] device_span<T const> device() const noexcept(!debug_build)
  {
    device_memory_.debug_check_not_moved_from("umsync::step_buffer");
    return device_span<T const>::adopt(device_memory_.get().data, size());
  }

  /// Copies the pinned staging memory to the device, in order on `stream`.
  template <stream_handle Stream>
  void to_device(Stream const& stream, std::source_location where = std::source_location::current())
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    copy(device_memory_.get().data, staging_.data(), stream.get(), where);
  }
  /// Copies the device memory to the pinned staging memory; read host() after `stream` has finished.
  template <stream_handle Stream>
  void to_host(Stream const& stream, std::source_location where = std::source_location::current())
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    copy(staging_.data(), device_memory_.get().data, stream.get(), where);
  }

 private:
  void copy(T* to, T const* from, cudaStream_t stream, std::source_location const& where) const
  {
    if (size() != 0) {
      check(cudaMemcpyAsync(to, from, size_bytes(), cudaMemcpyDefault, stream), "cudaMemcpyAsync (step_buffer)", where);
    }
  }

  detail::unique_handle<detail::owned_elements<T>, detail::free_device> device_memory_;
  pinned_buffer<T> staging_;
  int device_;
};

UMSYNC_NAMESPACE_END
