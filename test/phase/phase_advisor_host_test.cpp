// Host tests of umsync/phase/phase_plan.hpp and umsync/phase/phase_advisor.hpp: the plan a set of
// phases derives is pure compile-time logic, checked here without a GPU. The plan is the one the
// GPU test runs: test/support/training_plan.hpp.
#include "support/training_plan.hpp"

#include <doctest/doctest.h>
#include <umsync/device.hpp>
#include <umsync/phase/phase_advisor.hpp>

#include <string>
#include <type_traits>

namespace {
struct named_buffer {
  static constexpr char const* name = "custom name";
};

using umsync::phase_side;

// Read-mostly only where the phase reads without writing; never where it writes.
static_assert(training::read_mostly_in<forward, weights>);
static_assert(training::read_mostly_in<backward, weights>);
static_assert(!training::read_mostly_in<optimizer, weights>);
static_assert(training::read_mostly_in<checkpoint, weights>);
static_assert(!training::read_mostly_in<forward, activations>);
static_assert(training::read_mostly_in<backward, activations>);
static_assert(!training::read_mostly_in<backward, grads>);
static_assert(training::read_mostly_in<optimizer, grads>);
// A phase that does not name a buffer leaves it alone.
static_assert(!training::used_in<forward, grads>);
static_assert(!training::read_mostly_in<forward, grads>);
static_assert(training::prefetch_to<forward, grads> == phase_side::none);
// Prefetch goes where the access runs.
static_assert(training::prefetch_to<forward, weights> == phase_side::device);
static_assert(training::prefetch_to<checkpoint, weights> == phase_side::host);
// Preferred location only for buffers used on one side.
static_assert(training::preferred_side<weights> == phase_side::none);
static_assert(training::preferred_side<activations> == phase_side::device);
static_assert(training::preferred_side<grads> == phase_side::device);
static_assert(training::declares_phase<optimizer>);
static_assert(!training::declares_phase<struct undeclared>);

using host_only = umsync::phase_plan<umsync::phase<checkpoint, umsync::uses<named_buffer, umsync::host_read_write>>>;
static_assert(host_only::preferred_side<named_buffer> == phase_side::host);
static_assert(!host_only::read_mostly_in<checkpoint, named_buffer>);
static_assert(host_only::writes<checkpoint, named_buffer>);

// Views are const exactly where the phase declared read-only access.
using forward_weights = training::access_t<forward, weights>;
static_assert(std::is_same_v<forward_weights, umsync::device_read>);
static_assert(!forward_weights::writes);
}  // namespace

TEST_CASE("describe() names every preferred location and every phase's advice and prefetch")
{
  std::string const text = training::describe("device 3");
  MESSAGE(text);
  CHECK(text.find("phase plan (4 phases)") != std::string::npos);
  CHECK(text.find("weights: none (used on device and host)") != std::string::npos);
  CHECK(text.find("activations: device 3") != std::string::npos);
  CHECK(text.find("phase forward:\n  weights (device_read): read-mostly on, prefetch to device 3\n"
                  "  activations (device_read_write): read-mostly off, prefetch to device 3\n") != std::string::npos);
  CHECK(text.find("phase optimizer:\n  weights (device_read_write): read-mostly off") != std::string::npos);
  CHECK(text.find("phase checkpoint:\n  weights (host_read): read-mostly on, prefetch to host") != std::string::npos);
  // Each buffer's preferred location is listed once.
  CHECK(text.find("grads: device 3") == text.rfind("grads: device 3"));
}

TEST_CASE("a tag's own name is used when it has one")
{
  std::string const text = host_only::describe();
  CHECK(text.find("custom name: host") != std::string::npos);
  CHECK(text.find("custom name (host_read_write): read-mostly off, prefetch to host") != std::string::npos);
}

TEST_CASE("without a device, managed allocation is a cuda_error, not a crash")
{
  if (umsync::probe_devices().usable()) {
    MESSAGE("a device is present: the no-device path is not reachable here");
    return;
  }
  CHECK_THROWS_AS(umsync::managed_buffer<float>(16), umsync::cuda_error);
  CHECK_FALSE(umsync::batch_managed_calls_supported());
}
