// A user's own memory types, as a library outside umsync would write them: they take part in
// umsync's checks through umsync_memory, found by ADL in their own namespace; nothing in umsync
// names them. Shared by the memory protocol's host and GPU tests and its compile-fail test.
#pragma once

#include <umsync/memory/memory_span.hpp>

#include <cstddef>

namespace userlib {

/// Device memory the user allocated, usable on any stream.
template <class T>
struct device_array {
  T* pointer = nullptr;
  std::size_t count = 0;
};
template <class T>
umsync::device_span<T> umsync_memory(device_array<T>& a) noexcept
{
  return umsync::device_span<T>::adopt(a.pointer, a.count);
}
template <class T>
umsync::device_span<T const> umsync_memory(device_array<T> const& a) noexcept
{
  return umsync::device_span<T const>::adopt(a.pointer, a.count);
}

/// Device memory the user binds to one stream tag, as umsync's stream buffers are.
template <class T, class Tag>
struct stream_array {
  T* pointer = nullptr;
  std::size_t count = 0;
};
template <class T, class Tag>
umsync::device_span<T, Tag> umsync_memory(stream_array<T, Tag>& a) noexcept
{
  return umsync::device_span<T, Tag>::adopt(a.pointer, a.count);
}
template <class T, class Tag>
umsync::device_span<T const, Tag> umsync_memory(stream_array<T, Tag> const& a) noexcept
{
  return umsync::device_span<T const, Tag>::adopt(a.pointer, a.count);
}

/// Host memory from the user's own allocator, which the user knows to be pageable.
template <class T>
struct host_array {
  T* pointer = nullptr;
  std::size_t count = 0;
};
template <class T>
umsync::pageable_span<T> umsync_memory(host_array<T>& a) noexcept
{
  return umsync::pageable_span<T>::adopt(a.pointer, a.count);
}

/// A type that answers nothing: not memory to umsync.
struct opaque_handle {
  void* pointer = nullptr;
};

}  // namespace userlib
