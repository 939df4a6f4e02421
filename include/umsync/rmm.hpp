// umsync/rmm.hpp: umsync's pools fail the way RMM's resources fail (umsync::rmm, docs/rmm.md).
//
//   #include <umsync/rmm.hpp>                  // in any one translation unit of the program
//   umsync::memory_pool pool;
//   umsync::memory_pool_ref handle = pool;
//   rmm::device_buffer b(bytes, stream, handle);   // runs out: rmm::out_of_memory
//
// RMM's adaptors (failure_callback_resource_adaptor), its test battery and RAPIDS' retry and
// spill code catch rmm::out_of_memory when a resource runs out, and rmm::bad_alloc for other
// failed allocations. In a program that includes this header, a umsync pool's cuda::mr allocate
// (memory_pool and memory_pool_ref: the calls RMM makes) throws
//
//   out of memory                           umsync::rmm_out_of_memory   (rmm::out_of_memory)
//   any other failed CUDA call              umsync::rmm_bad_alloc       (rmm::bad_alloc)
//
// Each is also a umsync::error with umsync's message (the pool's state, the caller's line). Its
// one std::bad_alloc is RMM's, so `catch (std::bad_alloc const&)` and `catch (std::exception
// const&)` still catch it; it is not a umsync::bad_alloc, whose own std::bad_alloc would make
// both catches ambiguous, and match neither. A bad alignment stays umsync::invalid_argument (a
// bug in the caller, not a failed allocation). umsync's own buffers and policies are unchanged:
// they throw umsync::bad_alloc, also when the resource under them threw RMM's exception.
//
// The choice is made at run time, once for the program, before main (the inline variable at the
// bottom), not by a compile definition: translation units built with and without RMM then share
// one definition of memory_pool_ref.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_pool.hpp>

#include <rmm/error.hpp>

#include <cstddef>
#include <source_location>
#include <string>

UMSYNC_NAMESPACE_BEGIN

/// A umsync pool ran out, where RMM expects rmm::out_of_memory. What umsync::bad_alloc says, and
/// the same requested_bytes() and where().
class rmm_out_of_memory final : public ::rmm::out_of_memory, public error {
 public:
  explicit rmm_out_of_memory(umsync::bad_alloc const& failure)  // (bad_alloc alone is RMM's, inherited)
      : ::rmm::out_of_memory(std::string(failure.what())),
        message_(failure.what()),
        requested_bytes_(failure.requested_bytes()),
        where_(failure.where())
  {}

  /// umsync's message, which starts with "umsync: " (RMM's own what() adds its prefix).
  [[nodiscard]] char const* what() const noexcept override { return message_.c_str(); }
  [[nodiscard]] std::size_t requested_bytes() const noexcept { return requested_bytes_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  std::string message_;
  std::size_t requested_bytes_;
  std::source_location where_;
};

/// A umsync pool's allocation failed for another reason, where RMM expects rmm::bad_alloc. What
/// umsync::cuda_error says, and the same code() and where().
class rmm_bad_alloc final : public ::rmm::bad_alloc, public error {
 public:
  explicit rmm_bad_alloc(umsync::cuda_error const& failure)
      : ::rmm::bad_alloc(std::string(failure.what())),
        message_(failure.what()),
        status_(failure.code()),
        where_(failure.where())
  {}

  /// umsync's message, which starts with "umsync: " (RMM's own what() adds its prefix).
  [[nodiscard]] char const* what() const noexcept override { return message_.c_str(); }
  [[nodiscard]] cudaError_t code() const noexcept { return status_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  std::string message_;
  cudaError_t status_;
  std::source_location where_;
};

namespace detail {

inline void throw_rmm_out_of_memory(bad_alloc const& failure) { throw rmm_out_of_memory(failure); }
inline void throw_rmm_bad_alloc(cuda_error const& failure) { throw rmm_bad_alloc(failure); }

inline constexpr resource_failure_translation rmm_resource_failures{&throw_rmm_out_of_memory, &throw_rmm_bad_alloc};

/// Installed once per program by whichever translation unit initializes first; every one
/// installs the same translation.
inline bool const rmm_resource_failures_installed = (resource_failures.exchange(&rmm_resource_failures), true);

}  // namespace detail
UMSYNC_NAMESPACE_END
