// umsync/memory/memory_span.hpp: a non-owning view of memory that knows what kind it is.
//
// Async copies and launches need to know whether memory is device, pinned host, managed or
// pageable host memory (pageable memory makes cudaMemcpyAsync synchronous, and a kernel cannot
// read it), which stream it is bound to, and whether it may be written. A raw pointer knows
// none of this; a memory_span knows all of it: its element type (const: read-only), its kind
// and its stream tag. It is what the memory protocol (memory_range.hpp) hands out for any type.
#pragma once

#include <umsync/config.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

enum class memory_kind {
  device,         ///< cudaMalloc, pool allocations: the device only
  pinned_host,    ///< cudaMallocHost or cudaHostRegister: page-locked host memory
  managed,        ///< cudaMallocManaged: migrates between host and device
  pageable_host,  ///< malloc, new, std::vector: the host only; async copies of it block
};

template <class T, memory_kind Kind, class Tag = untagged>
class memory_span {
 public:
  using element_type = T;
  using bound_tag_type = Tag;
  static constexpr memory_kind kind = Kind;

  /// Views `count` elements at `data`, which the caller promises is memory of kind `Kind`.
  /// This is the named, untyped way in: nothing checks the promise.
  static constexpr memory_span adopt(T* data, std::size_t count) noexcept { return memory_span(data, count); }

  constexpr memory_span() noexcept = default;

  [[nodiscard]] constexpr T* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }

  /// The same memory, read-only.
  template <class Element = T>
    requires(!std::is_const_v<Element>)
  constexpr operator memory_span<Element const, Kind, Tag>() const noexcept  // NOLINT: like T* -> T const*
  {
    return memory_span<T const, Kind, Tag>::adopt(data_, size_);
  }

 private:
  constexpr memory_span(T* data, std::size_t count) noexcept : data_(data), size_(count) {}

  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T, class Tag = untagged>
using device_span = memory_span<T, memory_kind::device, Tag>;
template <class T>
using pinned_span = memory_span<T, memory_kind::pinned_host>;
template <class T>
using managed_span = memory_span<T, memory_kind::managed>;
template <class T>
using pageable_span = memory_span<T, memory_kind::pageable_host>;

UMSYNC_NAMESPACE_END
