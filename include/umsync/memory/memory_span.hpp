// umsync/memory/memory_span.hpp: a non-owning view of memory that knows what kind it is.
//
// Async copies and launches need to know whether memory is device, pinned host, managed or
// pageable host memory (pageable memory makes cudaMemcpyAsync synchronous, and a kernel cannot
// read it), which stream it is bound to, and whether it may be written. A raw pointer knows
// none of this; a memory_span knows all of it: its element type (const: read-only), its kind
// and its stream tag. It is what the memory protocol (memory_range.hpp) hands out for any type.
// A slice (subspan, first, last) is a memory_span of the same kind, tag and constness.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <cstdio>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

enum class memory_kind {
  device,         ///< cudaMalloc, pool allocations: the device only
  pinned_host,    ///< cudaMallocHost or cudaHostRegister: page-locked host memory
  managed,        ///< cudaMallocManaged: migrates between host and device
  pageable_host,  ///< malloc, new, std::vector: the host only; async copies of it block
};

namespace detail {

enum class slice_call { subspan, subspan_to_end, first, last };

/// The failure of a memory_span slice, out of line: one printf-style message, built only when
/// a slice is out of range (error.hpp is in every translation unit that reaches here anyway).
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_slice_out_of_range(slice_call call, std::size_t offset,
                                                                            std::size_t count, std::size_t size)
{
  char text[160] = {};
  switch (call) {
    case slice_call::subspan:
      std::snprintf(text, sizeof text, "memory_span::subspan(%zu, %zu) is out of range of a span of %zu elements",
                    offset, count, size);
      break;
    case slice_call::subspan_to_end:
      std::snprintf(text, sizeof text, "memory_span::subspan(%zu) is out of range of a span of %zu elements", offset,
                    size);
      break;
    case slice_call::first:
      std::snprintf(text, sizeof text, "memory_span::first(%zu) is out of range of a span of %zu elements", count,
                    size);
      break;
    case slice_call::last:
      std::snprintf(text, sizeof text, "memory_span::last(%zu) is out of range of a span of %zu elements", count, size);
      break;
  }
  throw out_of_range(text);
}

}  // namespace detail

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

  /// The `count` elements from `offset`: the same kind, tag and constness, so a slice of memory
  /// bound to a stream stays bound to it. Throws umsync::out_of_range when they do not all lie
  /// inside this span.
  [[nodiscard]] constexpr memory_span subspan(std::size_t offset, std::size_t count) const
  {
    if (offset > size_ || count > size_ - offset) {
      detail::throw_slice_out_of_range(detail::slice_call::subspan, offset, count, size_);
    }
    return memory_span(data_ + offset, count);
  }
  /// The elements from `offset` to the end.
  [[nodiscard]] constexpr memory_span subspan(std::size_t offset) const
  {
    if (offset > size_) {
      detail::throw_slice_out_of_range(detail::slice_call::subspan_to_end, offset, 0, size_);
    }
    return memory_span(data_ + offset, size_ - offset);
  }
  /// The first `count` elements.
  [[nodiscard]] constexpr memory_span first(std::size_t count) const
  {
    if (count > size_) {
      detail::throw_slice_out_of_range(detail::slice_call::first, 0, count, size_);
    }
    return memory_span(data_, count);
  }
  /// The last `count` elements.
  [[nodiscard]] constexpr memory_span last(std::size_t count) const
  {
    if (count > size_) {
      detail::throw_slice_out_of_range(detail::slice_call::last, 0, count, size_);
    }
    return memory_span(data_ + (size_ - count), count);
  }

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
