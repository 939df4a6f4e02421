// GPU tests of umsync/phase/phase_advisor.hpp: a training-like step of four phases over three
// managed buffers (the plan of test/support/training_plan.hpp). After each phase entry the advice
// and prefetch in force are read back with cudaMemRangeGetAttribute; random data goes through
// every phase and is checked on the host; memory returns to its baseline. 12 MiB of managed memory at most.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"
#include "support/training_plan.hpp"

#include <umsync/capture/capture_status.hpp>
#include <umsync/device.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace {
using u32 = std::uint32_t;
using umsync::managed_location;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

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

void warm_up_managed()
{
  static bool const done = [] {
    umsync::stream<> const s;
    {
      umsync::managed_buffer<u32> warm(1 << 18);
      warm[0] = 1;
      warm.advise(umsync::advice::read_mostly{});
      warm.advise(umsync::advice::preferred_location{managed_location::device(umsync::current_device())});
      if (umsync::capabilities(umsync::current_device()).concurrent_managed_access) {
        umsync::managed_batch batch;
        batch.add(warm, managed_location::device(umsync::current_device()));
        batch.prefetch(s);
        warm.prefetch(managed_location::host(), s);
      }
      warm.unadvise(umsync::advice::read_mostly{});
      s.synchronize();
      // The first capture sets up driver state too (the capture test case below).
      umsync::graph const g = [&] {
        umsync::capture_scope scope(s);
        umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{0});
        return scope.end();
      }();
      static_cast<void>(g);
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    return true;
  }();
  static_cast<void>(done);
}

/// One step through all four phases, checking what each entry put in force.
void run_step(umsync::phase_options options)
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  int const device = umsync::current_device();
  bool const concurrent = umsync::capabilities(device).concurrent_managed_access;
  std::size_t const n = (std::size_t{1} << 20) + rng() % 1000;  // about 4 MiB per buffer
  umsync::stream<> const s;
  umsync::managed_buffer<u32> w(n);
  umsync::managed_buffer<u32> act(n);
  umsync::managed_buffer<u32> g(n);
  std::vector<u32> initial(n);
  for (auto& x : initial) {
    x = static_cast<u32>(rng());
  }
  std::copy(initial.begin(), initial.end(), w.begin());
  std::fill(act.begin(), act.end(), 0xDEADBEEFU);  // poison what the kernels must write
  std::fill(g.begin(), g.end(), 0xDEADBEEFU);

  auto advisor = umsync::make_phase_advisor<training>(options, umsync::bind_buffer<weights>(w),
                                                      umsync::bind_buffer<activations>(act),
                                                      umsync::bind_buffer<grads>(g));
  CHECK(advisor.uses_batch_calls() == (options.batch && concurrent && umsync::batch_managed_calls_supported()));
  std::string const plan = advisor.describe();
  MESSAGE(plan);
  CHECK(plan.find("phase optimizer:") != std::string::npos);
  // Preferred locations for buffers used on one side only.
  CHECK(act.preferred_location() == std::optional{managed_location::device(device)});
  CHECK(g.preferred_location() == std::optional{managed_location::device(device)});
  CHECK_FALSE(w.preferred_location().has_value());

  auto const prefetched_to_device = [&](umsync::managed_buffer<u32> const& b) {
    return !concurrent || b.last_prefetch_location() == std::optional{managed_location::device(device)};
  };
  {
    auto scope = advisor.enter<forward>(s);
    static_assert(std::is_same_v<decltype(scope.view<weights>()), umsync::managed_span<u32 const>>);
    static_assert(std::is_same_v<decltype(scope.view<activations>()), umsync::managed_span<u32>>);
    CHECK_THROWS_AS(static_cast<void>(advisor.enter<backward>(s)), umsync::usage_error);  // scopes do not nest
    umsync::launch(s, grid, forward_kernel, scope.view<weights>(), scope.view<activations>(), n);
    s.synchronize();
    CHECK(w.read_mostly());
    CHECK_FALSE(act.read_mostly());
    CHECK(prefetched_to_device(w));
    CHECK(prefetched_to_device(act));
  }
  {
    auto scope = advisor.enter<backward>(s);
    static_assert(std::is_same_v<decltype(scope.view<activations>()), umsync::managed_span<u32 const>>);
    umsync::launch(s, grid, backward_kernel, scope.view<weights>(), scope.view<activations>(), scope.view<grads>(), n);
    s.synchronize();
    CHECK(w.read_mostly());
    CHECK(act.read_mostly());
    CHECK_FALSE(g.read_mostly());
    CHECK(prefetched_to_device(g));
  }
  {
    auto scope = advisor.enter<optimizer>(s);
    static_assert(std::is_same_v<decltype(scope.view<weights>()), umsync::managed_span<u32>>);
    static_assert(std::is_same_v<decltype(scope.view<grads>()), umsync::managed_span<u32 const>>);
    // The write phase removed read-mostly before its kernel was queued.
    CHECK_FALSE(w.read_mostly());
    CHECK(g.read_mostly());
    umsync::launch(s, grid, optimizer_kernel, scope.view<weights>(), scope.view<grads>(), n);
    s.synchronize();
  }
  {
    auto scope = advisor.enter<checkpoint>(s);
    s.synchronize();
    CHECK(w.read_mostly());  // host_read: set again after the optimizer removed it
    if (concurrent) {
      REQUIRE(w.last_prefetch_location().has_value());
      CHECK(w.last_prefetch_location()->is_host());
    }
    static_assert(std::is_same_v<decltype(scope.view<weights>()), std::span<u32 const>>);  // host phase: host view
    std::span<u32 const> const host_weights = scope.view<weights>();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      u32 const a = initial[i] * 3U + 1U;
      wrong += host_weights[i] != initial[i] - (a ^ initial[i]) ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
  // The host writes new weights outside any phase (a restore, not a checkpoint: the plan does
  // not name it, so the advice stays as the checkpoint left it); the next forward reads them.
  for (std::size_t i = 0; i < n; ++i) {
    w[i] = ~initial[i];
  }
  {
    auto scope = advisor.enter<forward>(s);
    umsync::launch(s, grid, forward_kernel, scope.view<weights>(), scope.view<activations>(), n);
    s.synchronize();
    CHECK(w.read_mostly());
    CHECK(prefetched_to_device(w));
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += act[i] != ~initial[i] * 3U + 1U ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
}
}  // namespace

TEST_CASE("phase entries apply the plan with batch prefetch: advice, prefetch and data through a step")
{
  run_step(umsync::phase_options{.batch = true});
}

TEST_CASE("phase entries apply the plan with one prefetch per buffer: the same advice, prefetch and data")
{
  run_step(umsync::phase_options{.batch = false});
}

TEST_CASE("a phase entry on a view of a capturing stream throws capture_error and the capture stays valid")
{
  warm_up_managed();
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const s;
  umsync::managed_buffer<u32> w(1024);
  umsync::managed_buffer<u32> act(1024);
  umsync::managed_buffer<u32> g(1024);
  auto advisor = umsync::make_phase_advisor<training>(umsync::bind_buffer<weights>(w),
                                                      umsync::bind_buffer<activations>(act),
                                                      umsync::bind_buffer<grads>(g));
  umsync::graph const graph = [&] {
    umsync::capture_scope scope(s);
    umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{0});
    // `s` is a plain stream type, so the compile-time rule cannot see the capture: the run-time one does.
    CHECK_THROWS_AS(static_cast<void>(advisor.enter<forward>(s)), umsync::capture_error);
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    UMSYNC_CUDA_CHECK(cudaStreamIsCapturing(s.get(), &status));
    CHECK(status == cudaStreamCaptureStatusActive);
    return scope.end();
  }();
  CHECK(graph.count_nodes(cudaGraphNodeTypeKernel) == 1);
  // Outside the capture the same entry works.
  auto scope = advisor.enter<forward>(s);
  s.synchronize();
  CHECK(w.read_mostly());
}
