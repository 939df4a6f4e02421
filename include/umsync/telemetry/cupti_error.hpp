// umsync/telemetry/cupti_error.hpp: the exceptions of umsync's telemetry (CUPTI) layer.
//
//   umsync::telemetry::cupti_error      a CUPTI call failed; names the call and CUPTI's text
//   umsync::telemetry::scope_conflict   a second telemetry scope while one is active
//   umsync::telemetry::counters_unavailable  CUPTI delivered no record of a known migration
//
// Part of the separate umsync::telemetry target (it needs CUPTI's headers and libcupti).
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cupti.h>

#include <chrono>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry {

/// A CUPTI call failed. Holds CUPTI's status, the call and the caller's location; the
/// message carries cuptiGetResultString's text, e.g. "CUPTI_ERROR_INVALID_OPERATION".
class cupti_error : public umsync::detail::standard_error<> {
 public:
  cupti_error(CUptiResult status, umsync::detail::text_view call,
              std::source_location where = std::source_location::current())
      : standard_error(call, " failed with ", result_name(status), " at ", where),
        status_(status),
        call_(call),
        where_(where)
  {}

  [[nodiscard]] CUptiResult code() const noexcept { return status_; }
  [[nodiscard]] char const* call() const noexcept { return call_.c_str(); }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

  /// CUPTI's name for a status; the number when CUPTI has none (an older libcupti).
  [[nodiscard]] static umsync::detail::fixed_text<64> result_name(CUptiResult status) noexcept
  {
    char const* text = nullptr;
    if (cuptiGetResultString(status, &text) == CUPTI_SUCCESS && text != nullptr) {
      return umsync::detail::fixed_text<64>(text);
    }
    return umsync::detail::compose<64>("CUptiResult ", static_cast<int>(status));
  }

 private:
  CUptiResult status_;
  umsync::detail::call_text call_;
  std::source_location where_;
};

/// A telemetry scope was opened while another was active. CUPTI's activity buffers and its
/// unified-memory counter configuration are process-wide, so two scopes would each see the
/// other's migrations: the second is refused instead.
class scope_conflict : public usage_error {
 public:
  explicit scope_conflict(std::source_location where = std::source_location::current())
      : usage_error("a unified-memory telemetry scope is already active in this process (CUPTI activity "
                    "records are process-wide); end it before opening another, at ",
                    where)
  {}
};

/// CUPTI delivered no unified-memory record for a 2 MiB prefetch it must have seen, within the
/// time given: counting now would report zero migrations for any workload. Seen when another
/// CUPTI client owns the activity API, or under a tool that intercepts CUPTI.
class counters_unavailable : public umsync::detail::standard_error<> {
 public:
  counters_unavailable(std::chrono::milliseconds waited, std::source_location where = std::source_location::current())
      : standard_error("CUPTI delivered no unified-memory record for a 2 MiB prefetch within ", waited.count(),
                       " ms; unified-memory counters would read zero for any workload, at ", where)
  {}
};

namespace detail {

/// Throws cupti_error when `status` is not CUPTI_SUCCESS.
inline void check_cupti(CUptiResult status, umsync::detail::text_view call,
                        std::source_location where = std::source_location::current())
{
  if (status != CUPTI_SUCCESS) [[unlikely]] {
    throw cupti_error(status, call, where);
  }
}

}  // namespace detail

}  // namespace telemetry

UMSYNC_NAMESPACE_END
