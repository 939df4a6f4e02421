// umsync/memory/pinned_buffer.hpp: page-locked host memory, owned (pinned_buffer) or
// registered in place (host_registration).
//
// Async copies between device and pinned memory run on the copy engines at full PCIe speed
// and do not block the host; pageable memory would make them synchronous.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>

#include <cstddef>
#include <source_location>
#include <span>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

struct free_pinned {
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    debug::note_freed(memory.data);
    report_in_destructor(cudaFreeHost(memory.data), "cudaFreeHost");
  }
};

struct unregister_host {
  template <class T>
  void operator()(owned_elements<T> const& memory) const noexcept
  {
    debug::note_freed(memory.data);
    report_in_destructor(cudaHostUnregister(const_cast<std::remove_const_t<T>*>(memory.data)), "cudaHostUnregister");
  }
};

}  // namespace detail

/// `count` elements of page-locked host memory (cudaMallocHost). Move-only; moved-from, it is
/// empty (docs/architecture.md).
template <class T>
class pinned_buffer {
  static_assert(std::is_trivially_copyable_v<T>, "umsync: pinned_buffer holds trivially copyable elements only");

 public:
  using value_type = T;

  explicit pinned_buffer(std::size_t count, std::source_location where = std::source_location::current())
      : memory_(detail::allocate_elements<T>(
            count, "pinned_buffer", "cudaMallocHost",
            [](void** memory, std::size_t bytes) { return cudaMallocHost(memory, bytes); }, where))
  {}

  [[nodiscard]] T* data() noexcept { return memory_.get().data; }
  [[nodiscard]] T const* data() const noexcept { return memory_.get().data; }
  [[nodiscard]] std::size_t size() const noexcept { return memory_.get().size; }
  [[nodiscard]] std::size_t size_bytes() const noexcept { return size() * sizeof(T); }
  [[nodiscard]] bool empty() const noexcept { return memory_.empty(); }
  [[nodiscard]] T& operator[](std::size_t i) noexcept { return data()[i]; }
  [[nodiscard]] T const& operator[](std::size_t i) const noexcept { return data()[i]; }
  [[nodiscard]] T* begin() noexcept { return data(); }
  [[nodiscard]] T* end() noexcept { return data() + size(); }
  [[nodiscard]] pinned_span<T> span() noexcept { return pinned_span<T>::adopt(data(), size()); }
  [[nodiscard]] pinned_span<T const> span() const noexcept { return pinned_span<T const>::adopt(data(), size()); }

  /// The memory protocol (memory_range.hpp): pinned host memory, on any stream. UMSYNC_DEBUG
  /// builds refuse a moved-from buffer with usage_error.
  friend pinned_span<T> umsync_memory(pinned_buffer& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::pinned_buffer");
    return buffer.span();
  }
  friend pinned_span<T const> umsync_memory(pinned_buffer const& buffer) noexcept(!debug_build)
  {
    buffer.memory_.debug_check_not_moved_from("umsync::pinned_buffer");
    return buffer.span();
  }

 private:
  detail::unique_handle<detail::owned_elements<T>, detail::free_pinned> memory_;
};

/// Page-locks existing host memory for its lifetime (cudaHostRegister). The memory must
/// outlive the registration. Move-only; moved-from, it is empty.
template <class T>
class host_registration {
 public:
  explicit host_registration(std::span<T> memory, std::source_location where = std::source_location::current())
  {
    if (!memory.empty()) {
      check(cudaHostRegister(const_cast<std::remove_const_t<T>*>(memory.data()), memory.size_bytes(),
                             cudaHostRegisterDefault),
            "cudaHostRegister", where);
      registered_ = decltype(registered_)(detail::owned_elements<T>{memory.data(), memory.size()});
      detail::debug::note_allocated(memory.data(), memory.size_bytes());
    }
  }

  [[nodiscard]] pinned_span<T> span() const noexcept
  {
    return pinned_span<T>::adopt(registered_.get().data, registered_.get().size);
  }

  friend pinned_span<T> umsync_memory(host_registration const& registration) noexcept(!debug_build)
  {
    registration.registered_.debug_check_not_moved_from("umsync::host_registration");
    return registration.span();
  }

 private:
  detail::unique_handle<detail::owned_elements<T>, detail::unregister_host> registered_;
};

UMSYNC_NAMESPACE_END
