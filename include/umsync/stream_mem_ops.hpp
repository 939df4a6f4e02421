// umsync/stream_mem_ops.hpp: a stream that waits for, or writes, a 64-bit word in memory
// (the driver's cuStreamWaitValue64 / cuStreamWriteValue64; the runtime has no such calls).
//
//   umsync::stream_write_value(producer, word, 7);        // after the producer's work
//   umsync::stream_wait_at_least(consumer, word, 5);      // the consumer's later work waits
//
// The wait is "at least" (CU_STREAM_WAIT_VALUE_GEQ, compared as (int64_t)(*word - value) >= 0)
// unless asked otherwise: an equality wait (stream_wait_equal) hangs the stream for good when the
// word overshoots. The driver rejects managed memory for these operations, so umsync refuses it
// before anything is queued, and refuses devices without 64-bit stream memory operations.
// Driver functions are reached through cudaGetDriverEntryPointByVersion; libcuda is not linked.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/driver_entry.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/stream_view.hpp>

#include <cuda.h>

#include <cstdint>
#include <source_location>
#include <string>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

using stream_wait_value64_fn = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);
using stream_write_value64_fn = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned int);

/// Throws unless `word` may take part in a stream memory operation on `stream`'s device: the
/// device supports 64-bit operations, and the word is 8-byte aligned device or pinned host
/// memory (not managed, not pageable).
inline CUdeviceptr stream_mem_op_address(cudaStream_t stream, void const* word, char const* operation,
                                         std::source_location const& where)
{
  int ordinal = -1;
  check(cudaStreamGetDevice(stream, &ordinal), "cudaStreamGetDevice", where);
  if (!capabilities(ordinal, where).stream_mem_ops_64bit) {
    throw cuda_error(cudaErrorNotSupported,
                     std::string(operation) + " (device " + std::to_string(ordinal) +
                         " does not support 64-bit stream memory operations)",
                     where);
  }
  if (reinterpret_cast<std::uintptr_t>(word) % 8U != 0U) {
    throw usage_error(std::string(operation) + ": the word must be 8-byte aligned");
  }
  cudaPointerAttributes attributes{};
  check(cudaPointerGetAttributes(&attributes, word), "cudaPointerGetAttributes", where);
  switch (attributes.type) {
    case cudaMemoryTypeManaged:
      throw usage_error(std::string(operation) +
                        ": the word is in managed memory, which stream memory operations do not accept; use "
                        "device memory or pinned host memory");
    case cudaMemoryTypeUnregistered:
      throw usage_error(std::string(operation) +
                        ": the word is in pageable host memory; use device memory or pinned host memory");
    case cudaMemoryTypeHost:
    case cudaMemoryTypeDevice: break;
  }
  if (attributes.devicePointer == nullptr) {
    throw usage_error(std::string(operation) + ": the pinned word is not mapped into the device's address space");
  }
  return reinterpret_cast<CUdeviceptr>(attributes.devicePointer);
}

inline void stream_wait_value(cudaStream_t stream, std::uint64_t const* word, std::uint64_t value, unsigned flags,
                              char const* operation, std::source_location const& where)
{
  CUdeviceptr const address = stream_mem_op_address(stream, word, operation, where);
  static auto const wait = driver_function<stream_wait_value64_fn>("cuStreamWaitValue64", where);
  check_driver(wait(stream, address, value, flags), operation, where);
}

}  // namespace detail

/// Work queued on `stream` after this call waits until *word >= value (cyclic 64-bit
/// comparison, so a counter that overshoots still releases the stream).
template <stream_handle S>
void stream_wait_at_least(S const& stream, std::uint64_t const* word, std::uint64_t value,
                          std::source_location where = std::source_location::current())
{
  detail::stream_wait_value(stream.get(), word, value, CU_STREAM_WAIT_VALUE_GEQ, "cuStreamWaitValue64(GEQ)", where);
}

/// Work queued on `stream` after this call waits until *word == value. Only for words that are
/// stored, never incremented past `value`: otherwise the stream never goes on.
template <stream_handle S>
void stream_wait_equal(S const& stream, std::uint64_t const* word, std::uint64_t value,
                       std::source_location where = std::source_location::current())
{
  detail::stream_wait_value(stream.get(), word, value, CU_STREAM_WAIT_VALUE_EQ, "cuStreamWaitValue64(EQ)", where);
}

/// Writes `value` to *word once the work queued on `stream` before it is done; the write is
/// preceded by a memory barrier, so that work's results are visible to whoever sees the value.
template <stream_handle S>
void stream_write_value(S const& stream, std::uint64_t* word, std::uint64_t value,
                        std::source_location where = std::source_location::current())
{
  CUdeviceptr const address = detail::stream_mem_op_address(stream.get(), word, "cuStreamWriteValue64", where);
  static auto const write = detail::driver_function<detail::stream_write_value64_fn>("cuStreamWriteValue64", where);
  detail::check_driver(write(stream.get(), address, value, CU_STREAM_WRITE_VALUE_DEFAULT), "cuStreamWriteValue64",
                       where);
}

UMSYNC_NAMESPACE_END
