// The unified-memory CI health gate: a training-like step (forward, backward, optimizer on
// the device, a checkpoint read on the host) runs twice over managed memory, once
// fault-driven (no advice, no prefetch) and once advised by umsync::phase_advisor. CUPTI's
// unified-memory counters (umsync::telemetry) are read for each, and one budget, what a
// healthy step may migrate on demand, is checked against both.
//
// Exit 0 only when the gate FAILS the fault-driven step and PASSES the advised one, and both
// steps computed the right weights; 1 otherwise, or without a GPU (it says why).
//
// Budget: pages move by prefetch, so on-demand bytes at most 1 MiB each way and at most 4
// GPU and 4 CPU page faults per step. A fault-driven step is far above that (on the H200 a
// kernel reading 64 MiB of host-resident memory faulted 102 times and moved all 64 MiB on
// demand); the slack tolerates a stray page without letting a fault-driven phase through.
#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>
#include <umsync/telemetry/um_budget.hpp>
#include <umsync/telemetry/um_scope.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace {
using u32 = std::uint32_t;
namespace telemetry = umsync::telemetry;

constexpr std::size_t words = std::size_t{4} << 20;  // 16 MiB per buffer, 48 MiB in all
constexpr umsync::launch_config grid{.grid = 264, .block = 256};

// The plan of the phase tests (test/support/training_plan.hpp is the tested copy): the
// checkpoint only reads the weights, so read-mostly stays on there and the device keeps its copy.
struct forward {};  // phases
struct backward {};
struct optimizer {};
struct checkpoint {};

struct weights {};  // buffers
struct activations {};
struct grads {};

using training = umsync::phase_plan<
    umsync::phase<forward, umsync::uses<weights, umsync::device_read>,
                  umsync::uses<activations, umsync::device_read_write>>,
    umsync::phase<backward, umsync::uses<weights, umsync::device_read>, umsync::uses<activations, umsync::device_read>,
                  umsync::uses<grads, umsync::device_read_write>>,
    umsync::phase<optimizer, umsync::uses<weights, umsync::device_read_write>,
                  umsync::uses<grads, umsync::device_read>>,
    umsync::phase<checkpoint, umsync::uses<weights, umsync::host_read>>>;

constexpr telemetry::um_budget gate{
    .max_htod_fault_bytes = std::uint64_t{1} << 20,
    .max_dtoh_fault_bytes = std::uint64_t{1} << 20,
    .max_cpu_page_faults = 4,
    .max_gpu_page_faults = 4,
};

// activations = weights * 3 + 1
__global__ void forward_kernel(u32 const* w, u32* act, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    act[i] = w[i] * 3U + 1U;
  }
}
// grads = activations ^ weights
__global__ void backward_kernel(u32 const* w, u32 const* act, u32* g, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    g[i] = act[i] ^ w[i];
  }
}
// weights -= grads
__global__ void optimizer_kernel(u32* w, u32 const* g, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    w[i] -= g[i];
  }
}

u32 expected_weight(u32 initial)
{
  u32 const a = initial * 3U + 1U;
  return initial - (a ^ initial);
}

/// Host-written weights; activations and grads poisoned by the host: every page starts on the host.
void initialize(std::vector<u32> const& initial, umsync::managed_buffer<u32>& w, umsync::managed_buffer<u32>& act,
                umsync::managed_buffer<u32>& g)
{
  for (std::size_t i = 0; i < words; ++i) {
    w[i] = initial[i];
    act[i] = 0xDEADBEEFU;
    g[i] = 0xDEADBEEFU;
  }
}

/// The checkpoint: the host reads every weight; returns how many are wrong.
std::size_t checkpoint_errors(std::vector<u32> const& initial, std::span<u32 const> w)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < words; ++i) {
    wrong += w[i] != expected_weight(initial[i]) ? 1 : 0;
  }
  return wrong;
}

struct step_result {
  telemetry::um_counters counters;
  std::size_t wrong = 0;
};

step_result fault_driven_step(std::vector<u32> const& initial)
{
  umsync::stream<> const s;
  umsync::managed_buffer<u32> w(words);
  umsync::managed_buffer<u32> act(words);
  umsync::managed_buffer<u32> g(words);
  initialize(initial, w, act, g);
  step_result result;
  result.counters = telemetry::measure_um([&] {
    umsync::launch(s, grid, forward_kernel, std::as_const(w).span(), act.span(), words);
    umsync::launch(s, grid, backward_kernel, std::as_const(w).span(), std::as_const(act).span(), g.span(), words);
    umsync::launch(s, grid, optimizer_kernel, w.span(), std::as_const(g).span(), words);
    s.synchronize();
    result.wrong = checkpoint_errors(initial, w);
  });
  return result;
}

step_result advised_step(std::vector<u32> const& initial)
{
  umsync::stream<> const s;
  umsync::managed_buffer<u32> w(words);
  umsync::managed_buffer<u32> act(words);
  umsync::managed_buffer<u32> g(words);
  initialize(initial, w, act, g);
  auto advisor = umsync::make_phase_advisor<training>(umsync::bind_buffer<weights>(w),
                                                      umsync::bind_buffer<activations>(act),
                                                      umsync::bind_buffer<grads>(g));
  std::printf("%s\n", advisor.describe().c_str());
  // One scope per phase, so a step over budget says which phase moved pages on demand.
  step_result result;
  auto const measured = [&](char const* phase, auto&& body) {
    telemetry::um_counters const c = telemetry::measure_um(body);
    std::printf("  phase %-10s on demand %8llu B to device, %8llu B to host; GPU faults %llu, CPU faults %llu\n", phase,
                static_cast<unsigned long long>(c.htod_fault_bytes),
                static_cast<unsigned long long>(c.dtoh_fault_bytes), static_cast<unsigned long long>(c.gpu_page_faults),
                static_cast<unsigned long long>(c.cpu_page_faults));
    result.counters += c;
  };
  measured("forward", [&] {
    auto scope = advisor.enter<forward>(s);
    umsync::launch(s, grid, forward_kernel, scope.view<weights>(), scope.view<activations>(), words);
  });
  measured("backward", [&] {
    auto scope = advisor.enter<backward>(s);
    umsync::launch(s, grid, backward_kernel, scope.view<weights>(), scope.view<activations>(), scope.view<grads>(),
                   words);
  });
  measured("optimizer", [&] {
    auto scope = advisor.enter<optimizer>(s);
    umsync::launch(s, grid, optimizer_kernel, scope.view<weights>(), scope.view<grads>(), words);
  });
  measured("checkpoint", [&] {
    auto scope = advisor.enter<checkpoint>(s);
    s.synchronize();  // the prefetch to the host has landed before the host reads
    result.wrong = checkpoint_errors(initial, scope.view<weights>());
  });
  return result;
}

/// The first managed allocation and migration of a process set up driver state; do that
/// before either step is measured, so neither pays for it.
void warm_up()
{
  umsync::stream<> const s;
  umsync::managed_buffer<u32> warm(std::size_t{1} << 18);
  warm[0] = 1;
  warm.prefetch(umsync::managed_location::device(umsync::current_device()), s);
  warm.prefetch(umsync::managed_location::host(), s);
  s.synchronize();
}

bool report(char const* name, step_result const& step, bool gate_should_pass)
{
  auto const verdict = telemetry::check_budget(step.counters, gate);
  std::printf("== %s step: gate %s (expected %s); %zu wrong weights\n%s\n", name, verdict ? "PASSES" : "FAILS",
              gate_should_pass ? "to pass" : "to fail", step.wrong, verdict.describe().c_str());
  return static_cast<bool>(verdict) == gate_should_pass && step.wrong == 0;
}

}  // namespace

int main()
{
  try {
    umsync::device_probe const probe = umsync::probe_devices();
    if (!probe.usable()) {
      std::printf("um_health_gate: FAILED: %s; the gate needs a GPU with managed memory\n", probe.reason().c_str());
      return 1;
    }
    if (!umsync::capabilities(umsync::current_device()).concurrent_managed_access) {
      std::printf("um_health_gate: FAILED: device %d lacks concurrent managed access, so there is no prefetch to "
                  "the device and no advised step to pass the gate\n",
                  umsync::current_device());
      return 1;
    }
    warm_up();
    std::mt19937 rng(std::random_device{}());
    std::vector<u32> initial(words);
    for (auto& x : initial) {
      x = static_cast<u32>(rng());
    }
    std::printf("budget per step: on demand at most 1 MiB each way, at most 4 GPU and 4 CPU page faults\n\n");
    bool const fault_ok = report("fault-driven", fault_driven_step(initial), false);
    bool const advised_ok = report("advised (phase_advisor)", advised_step(initial), true);
    if (fault_ok && advised_ok) {
      std::printf("um_health_gate: OK: the gate fails the fault-driven step and passes the advised one\n");
      return 0;
    }
    std::printf("um_health_gate: FAILED:%s%s\n", fault_ok ? "" : " the fault-driven step was not caught as expected;",
                advised_ok ? "" : " the advised step did not pass as expected;");
    return 1;
  } catch (std::exception const& failure) {
    std::printf("um_health_gate: FAILED: %s\n", failure.what());
    return 1;
  }
}
