// umsync/detail/debug/checker_hooks.hpp: what umsync's types tell the UMSYNC_DEBUG ordering
// checker (ordering_checker.hpp): every allocation and its free, every access (of a span, or of
// a raw pointer a kernel receives, or the host's own), record, wait, host wait (of a stream, an
// event or the whole device), blocking streams and destruction; and the one debug check of what
// memory really is (pageable host memory said to be pinned, device or managed).
//
// In release builds each hook is empty and this header includes nothing of the checker, so a
// release translation unit pays neither run time nor compile time for it (the checker needs
// <map> and <mutex>, which cost more to compile than the rest of umsync's base headers).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/access.hpp>

#include <cstddef>
#include <source_location>

#if defined(UMSYNC_DEBUG)
#  include <umsync/detail/debug/ordering_checker.hpp>
#  include <umsync/error.hpp>

#  include <cstdio>
#  include <string>
#endif

UMSYNC_NAMESPACE_BEGIN
namespace detail::debug {

#if defined(UMSYNC_DEBUG)

inline void note_access(void const* address, std::size_t bytes, void const* stream, access kind,
                        std::source_location const& where)
{
  ordering_checker::instance().on_access(address, bytes, stream, kind, where);
}
/// A raw pointer a kernel receives: checked when it points into memory umsync allocated.
inline void note_pointer_access(void const* address, void const* stream, access kind, std::source_location const& where)
{
  static_cast<void>(ordering_checker::instance().on_pointer_access(address, stream, kind, where));
}
/// umsync allocated `bytes` at `base` (detail::allocate_elements, a host registration, an
/// imported allocation). Bookkeeping only: a failure to record it is ignored.
inline void note_allocated(void const* base, std::size_t bytes) noexcept
{
  try {
    ordering_checker::instance().on_allocate(base, bytes);
  } catch (...) {
  }
}
/// The allocation at `base` is being freed.
inline void note_freed(void const* base) noexcept
{
  try {
    ordering_checker::instance().on_deallocate(base);
  } catch (...) {
  }
}
/// Who reads memory a span describes: a kernel, or the copy engines (cudaMemcpyAsync).
enum class consumer { kernel, copy };

/// Throws usage_error when the memory at `address`, said to be `claimed` ("pinned host",
/// "device", "managed") by a memory_span's kind, is in fact pageable host memory that
/// `reader` cannot use as such: an async copy of pageable memory blocks the host, always; a
/// kernel cannot read it unless the device reads pageable memory (HMM, ATS:
/// cudaDevAttrPageableMemoryAccess). Memory umsync allocated is known and not asked about; for
/// other memory, one cudaPointerGetAttributes call, made in relaxed capture mode so that it
/// cannot disturb a capture in progress. A query that fails reports nothing.
inline void check_not_pageable(void const* address, char const* claimed, consumer reader, char const* operation,
                               std::source_location const& where)
{
  if (address == nullptr || ordering_checker::instance().tracks(address)) {
    return;
  }
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  bool const relaxed = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
  cudaPointerAttributes attributes{};
  cudaError_t const status = cudaPointerGetAttributes(&attributes, address);
  if (relaxed) {
    static_cast<void>(cudaThreadExchangeStreamCaptureMode(&mode));
  }
  if (status != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    return;
  }
  if (attributes.type != cudaMemoryTypeUnregistered) {
    return;
  }
  if (reader == consumer::kernel) {
    int device = 0;
    int reads_pageable = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&reads_pageable, cudaDevAttrPageableMemoryAccess, device) != cudaSuccess) {
      static_cast<void>(cudaGetLastError());
      return;
    }
    if (reads_pageable != 0) {
      return;  // this device's kernels read pageable memory: the launch works as written
    }
  }
  throw usage_error(operation, " at ", where, ": the memory at ", address, " is said to be ", claimed,
                    " memory (memory_span::adopt, or a type's umsync_memory) but it is pageable host memory, not ",
                    claimed, " memory: ",
                    reader == consumer::copy ? "an async copy of it would block the host"
                                             : "a kernel on this device cannot read it",
                    ". Use memory of that kind (umsync::pinned_buffer, or umsync::host_registration to pin "
                    "existing host memory), or view it as a pageable_span and copy it with "
                    "umsync::copy_sync_pageable");
}
/// The `bytes` at `base` are read-only until note_read_only_end(base); `describe()` says who
/// declared them so (called only in debug builds). Bookkeeping: failures are ignored.
template <class Describe>
void note_read_only_begin(void const* base, std::size_t bytes, Describe&& describe) noexcept
{
  try {
    ordering_checker::instance().on_read_only_begin(base, bytes, describe());
  } catch (...) {
  }
}
inline void note_read_only_end(void const* base) noexcept
{
  try {
    ordering_checker::instance().on_read_only_end(base);
  } catch (...) {
  }
}
inline void note_record(void const* event, void const* stream)
{
  ordering_checker::instance().on_record(event, stream);
}
inline void note_wait(void const* stream, void const* event) { ordering_checker::instance().on_wait(stream, event); }
inline void note_host_waited_for_stream(void const* stream)
{
  ordering_checker::instance().on_host_waited_for_stream(stream);
}
inline void note_host_waited_for_event(void const* event)
{
  ordering_checker::instance().on_host_waited_for_event(event);
}
/// The host itself accesses the `bytes` at `address` (pinned memory it writes or reads).
inline void note_host_access(void const* address, std::size_t bytes, access kind, std::source_location const& where)
{
  ordering_checker::instance().on_access(address, bytes, ordering_checker::host, kind, where);
}
/// The host waited for the current device (cudaDeviceSynchronize). Which known streams are that
/// device's: all of them where the process has one device; else those cudaStreamGetDevice places
/// there (the default streams' handles stand for every device's, so they are not joined, nor
/// are destroyed streams, whose device is gone). A stream that cannot be asked is not joined: a
/// false report, never a missed one.
inline void note_device_synchronized(int device)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());
    count = 0;
  }
  if (count == 1) {
    ordering_checker::instance().on_device_synchronized([](void const*) { return true; }, true);
    return;
  }
  ordering_checker::instance().on_device_synchronized(
      [device](void const* stream) {
        if (stream == static_cast<void const*>(cudaStreamLegacy) ||
            stream == static_cast<void const*>(cudaStreamPerThread)) {
          return false;
        }
        int of = -1;
        if (cudaStreamGetDevice(static_cast<cudaStream_t>(const_cast<void*>(stream)), &of) != cudaSuccess) {
          static_cast<void>(cudaGetLastError());
          return false;
        }
        return of == device;
      },
      false);
}
/// A kernel launch on `stream` begins (`dependent`: a programmatic dependent launch); its
/// arguments are noted until note_launch_end(stream).
inline void note_launch(void const* stream, bool dependent)
{
  ordering_checker::instance().on_launch(stream, dependent);
}
inline void note_launch_end(void const* stream) noexcept
{
  try {
    ordering_checker::instance().on_launch_end(stream);
  } catch (...) {  // bookkeeping: runs on the way out of a launch that may be throwing already
  }
}
/// An independent<T> parameter of the launch now beginning on `stream` takes the `bytes` at
/// `address` (ordering_checker::rest_of_allocation for a raw pointer): usage_error when earlier
/// work the dependent launch may overlap uses them in conflict (pdl.hpp, docs/pdl.md).
inline void check_independent_claim(void const* address, std::size_t bytes, void const* stream, access kind,
                                    std::source_location const& where)
{
  ordering_checker::instance().check_independent_claim(address, bytes, stream, kind, where);
}
inline constexpr std::size_t unknown_extent = ordering_checker::rest_of_allocation;
/// `stream` was made blocking (it synchronizes with the legacy default stream).
inline void note_blocking_stream(void const* stream) noexcept
{
  try {
    ordering_checker::instance().on_blocking_stream(stream);
  } catch (...) {  // bookkeeping: an allocation failure only loses ordering (a false report)
  }
}
inline void note_stream_destroyed(void const* stream) noexcept
{
  try {
    ordering_checker::instance().forget_stream(stream);
  } catch (...) {  // a destructor's bookkeeping must not throw (allocation failure)
  }
}
inline void note_event_destroyed(void const* event) noexcept
{
  try {
    ordering_checker::instance().forget_event(event);
  } catch (...) {
  }
}

#else

inline void note_access(void const*, std::size_t, void const*, access, std::source_location const&) {}
inline void note_pointer_access(void const*, void const*, access, std::source_location const&) {}
inline void note_allocated(void const*, std::size_t) noexcept {}
inline void note_freed(void const*) noexcept {}
enum class consumer { kernel, copy };
inline void check_not_pageable(void const*, char const*, consumer, char const*, std::source_location const&) {}
template <class Describe>
void note_read_only_begin(void const*, std::size_t, Describe&&) noexcept
{}
inline void note_read_only_end(void const*) noexcept {}
inline void note_record(void const*, void const*) {}
inline void note_wait(void const*, void const*) {}
inline void note_host_waited_for_stream(void const*) {}
inline void note_host_waited_for_event(void const*) {}
inline void note_host_access(void const*, std::size_t, access, std::source_location const&) {}
inline void note_device_synchronized(int) {}
inline void note_launch(void const*, bool) {}
inline void note_launch_end(void const*) noexcept {}
inline void check_independent_claim(void const*, std::size_t, void const*, access, std::source_location const&) {}
inline constexpr std::size_t unknown_extent = static_cast<std::size_t>(-1);
inline void note_blocking_stream(void const*) noexcept {}
inline void note_stream_destroyed(void const*) noexcept {}
inline void note_event_destroyed(void const*) noexcept {}

#endif

}  // namespace detail::debug
UMSYNC_NAMESPACE_END
