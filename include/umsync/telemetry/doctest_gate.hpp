// umsync/telemetry/doctest_gate.hpp: unified-memory budgets as doctest assertions.
//
//   #include <umsync/telemetry/doctest_gate.hpp>
//   TEST_CASE("a training step stays resident") {
//     auto const c = umsync::telemetry::measure_um([&] { step(); });
//     UMSYNC_CHECK_UM_BUDGET(c, .max_htod_bytes = 64 << 20, .max_gpu_page_faults = 0);
//   }
//
// The arguments after the counters initialize a umsync::telemetry::um_budget (designated
// initializers, or one um_budget to copy). On failure doctest prints every limit exceeded
// and all measured counters. UMSYNC_REQUIRE_UM_BUDGET ends the test case instead.
//
// A public header rather than a test-support file: the gate is for users' own test suites,
// next to their steps. It is the only umsync header that includes doctest, so only programs
// that include it need doctest; the verdict itself (um_budget.hpp) is framework-neutral.
#pragma once

#include <umsync/telemetry/um_budget.hpp>
#include <umsync/telemetry/um_counters.hpp>
#include <umsync/telemetry/um_scope.hpp>

#include <doctest/doctest.h>

/// CHECK that `counters` (a umsync::telemetry::um_counters) is within the budget given by the
/// remaining arguments (um_budget's designated initializers).
#define UMSYNC_CHECK_UM_BUDGET(counters, ...)                                                                       \
  do {                                                                                                              \
    auto const umsync_um_verdict_ = ::umsync::telemetry::check_budget((counters),                                   \
                                                                      ::umsync::telemetry::um_budget{__VA_ARGS__}); \
    CHECK_MESSAGE(umsync_um_verdict_.within_budget(), umsync_um_verdict_.describe());                               \
  } while (false)

/// As UMSYNC_CHECK_UM_BUDGET, but a breach ends the test case (REQUIRE).
#define UMSYNC_REQUIRE_UM_BUDGET(counters, ...)                                                                     \
  do {                                                                                                              \
    auto const umsync_um_verdict_ = ::umsync::telemetry::check_budget((counters),                                   \
                                                                      ::umsync::telemetry::um_budget{__VA_ARGS__}); \
    REQUIRE_MESSAGE(umsync_um_verdict_.within_budget(), umsync_um_verdict_.describe());                             \
  } while (false)
