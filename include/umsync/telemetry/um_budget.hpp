// umsync/telemetry/um_budget.hpp: a unified-memory budget for a step, and the verdict of
// measured counters against it: the core of a CI health gate, independent of any test
// framework (doctest_gate.hpp wraps it for doctest).
//
//   umsync::telemetry::um_budget const budget{.max_htod_fault_bytes = 0, .max_gpu_page_faults = 0};
//   auto const verdict = umsync::telemetry::check_budget(counters, budget);
//   if (!verdict) { std::cerr << verdict.describe(); }
//
// A limit left empty is not checked. Counters that CUPTI reported with dropped records are
// lower bounds, so a verdict over them fails: a gate must not pass on missing data.
#pragma once

#include <umsync/config.hpp>
#include <umsync/telemetry/um_counters.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

UMSYNC_NAMESPACE_BEGIN

namespace telemetry {

/// Upper limits for one step; each is inclusive ("at most").
struct um_budget {
  std::optional<std::uint64_t> max_htod_bytes = std::nullopt;
  std::optional<std::uint64_t> max_htod_fault_bytes = std::nullopt;  ///< host to device by faults, not by prefetch
  std::optional<std::uint64_t> max_dtoh_bytes = std::nullopt;
  std::optional<std::uint64_t> max_dtoh_fault_bytes = std::nullopt;
  std::optional<std::uint64_t> max_cpu_page_faults = std::nullopt;
  std::optional<std::uint64_t> max_gpu_page_faults = std::nullopt;
  std::optional<std::uint64_t> max_thrashing_events = std::nullopt;
  std::optional<std::uint64_t> max_throttling_events = std::nullopt;
};

/// The outcome: within budget, or the list of limits exceeded.
class um_verdict {
 public:
  um_verdict(um_counters measured, std::vector<std::string> breaches)
      : measured_(measured), breaches_(std::move(breaches))
  {}

  [[nodiscard]] bool within_budget() const noexcept { return breaches_.empty(); }
  explicit operator bool() const noexcept { return within_budget(); }
  [[nodiscard]] std::vector<std::string> const& breaches() const noexcept { return breaches_; }
  [[nodiscard]] um_counters const& measured() const noexcept { return measured_; }

  /// "within budget" or one line per breach, then the measured counters.
  [[nodiscard]] std::string describe() const
  {
    std::string text = within_budget() ? "unified memory within budget\n" : "unified memory over budget:\n";
    for (auto const& breach : breaches_) {
      text += "  " + breach + "\n";
    }
    return text + measured_.describe();
  }

 private:
  um_counters measured_;
  std::vector<std::string> breaches_;
};

/// Compares `measured` with every limit `budget` sets.
[[nodiscard]] inline um_verdict check_budget(um_counters const& measured, um_budget const& budget)
{
  std::vector<std::string> breaches;
  auto const limit = [&](char const* name, std::uint64_t value, std::optional<std::uint64_t> const& most) {
    if (most.has_value() && value > *most) {
      breaches.push_back(std::string(name) + " = " + std::to_string(value) + ", budget " + std::to_string(*most));
    }
  };
  limit("host-to-device bytes", measured.htod_bytes, budget.max_htod_bytes);
  limit("host-to-device bytes on demand (faults)", measured.htod_fault_bytes, budget.max_htod_fault_bytes);
  limit("device-to-host bytes", measured.dtoh_bytes, budget.max_dtoh_bytes);
  limit("device-to-host bytes on demand (faults)", measured.dtoh_fault_bytes, budget.max_dtoh_fault_bytes);
  limit("CPU page faults", measured.cpu_page_faults, budget.max_cpu_page_faults);
  limit("GPU page faults", measured.gpu_page_faults, budget.max_gpu_page_faults);
  limit("thrashing events", measured.thrashing_events, budget.max_thrashing_events);
  limit("throttling events", measured.throttling_events, budget.max_throttling_events);
  if (measured.dropped_records != 0) {
    breaches.push_back("CUPTI dropped " + std::to_string(measured.dropped_records) +
                       " records: the counters are lower bounds and cannot pass a budget");
  }
  return um_verdict(measured, std::move(breaches));
}

}  // namespace telemetry

UMSYNC_NAMESPACE_END
