// umsync/nccl/nccl_error.hpp: NCCL failures as umsync exceptions.
//
//   umsync::nccl::check(ncclAllReduce(...), "ncclAllReduce", comm);
//       // throws umsync::nccl_error: "umsync: ncclAllReduce failed with ncclInvalidArgument
//       // (invalid argument ...); NCCL says: <ncclGetLastError> at file.cu:42"
//
// nccl_error sits next to cuda_error (both umsync::error and std::runtime_error: a call into
// the device stack failed). It keeps the ncclResult_t, the call, NCCL's own last-error text and the caller's
// location. Destructors never throw: an NCCL failure there goes to umsync's destructor error
// handler (set_destructor_error_handler) as the nccl_error it would have thrown.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <nccl.h>

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// The enumerator's name, e.g. "ncclInvalidArgument".
[[nodiscard]] constexpr char const* nccl_result_name(ncclResult_t result) noexcept
{
  switch (result) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    case ncclInProgress: return "ncclInProgress";
    default: return "ncclResult_t(unknown)";
  }
}

/// NCCL's text for its most recent failure on `comm` (nullptr: not tied to a communicator);
/// empty when NCCL has none.
[[nodiscard]] inline std::string nccl_last_error(ncclComm_t comm) noexcept
{
  try {
    char const* text = ncclGetLastError(comm);
    return text != nullptr ? std::string(text) : std::string();
  } catch (...) {
    return {};
  }
}

}  // namespace detail

/// An NCCL call failed. Names the call, the result, NCCL's last-error text and where.
class nccl_error : public umsync::detail::standard_error<> {
 public:
  nccl_error(ncclResult_t result, umsync::detail::text_view call, umsync::detail::text_view last_error,
             std::source_location where = std::source_location::current())
      : standard_error(call, " failed with ", detail::nccl_result_name(result), " (", ncclGetErrorString(result), ")",
                       last_error.empty() ? "" : "; NCCL says: ", last_error, " at ", where),
        result_(result),
        call_(call),
        last_error_(last_error),
        where_(where)
  {}

  [[nodiscard]] ncclResult_t code() const noexcept { return result_; }
  /// The result's enumerator name, e.g. "ncclInvalidArgument".
  [[nodiscard]] char const* name() const noexcept { return detail::nccl_result_name(result_); }
  [[nodiscard]] char const* call() const noexcept { return call_.c_str(); }
  /// What ncclGetLastError said when the call failed (may be empty).
  [[nodiscard]] char const* last_error() const noexcept { return last_error_.c_str(); }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  ncclResult_t result_;
  umsync::detail::call_text call_;
  umsync::detail::message_text last_error_;
  std::source_location where_;
};

namespace nccl {

/// Throws nccl_error when `result` is not ncclSuccess; `comm` (may be null) is the
/// communicator whose last error NCCL is asked for.
inline void check(ncclResult_t result, std::string_view call, ncclComm_t comm = nullptr,
                  std::source_location where = std::source_location::current())
{
  if (result != ncclSuccess) [[unlikely]] {
    throw nccl_error(result, call, umsync::detail::nccl_last_error(comm), where);
  }
}

}  // namespace nccl

namespace detail {

/// For destructors: reports an NCCL failure through the destructor error handler instead of
/// throwing.
inline void report_nccl_in_destructor(ncclResult_t result, std::string_view call, ncclComm_t comm,
                                      std::source_location where = std::source_location::current()) noexcept
{
  if (result == ncclSuccess) [[likely]] {
    return;
  }
  try {
    report_in_destructor(nccl_error(result, call, nccl_last_error(comm), where));
  } catch (...) {
    // Building the message allocates; if that fails there is nothing better to do.
  }
}

}  // namespace detail

UMSYNC_NAMESPACE_END
