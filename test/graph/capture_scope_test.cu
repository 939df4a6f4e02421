// GPU tests of umsync/graph/capture_scope.hpp and capturing_stream.hpp: what a capture records,
// how a scope ends (end(), discard, exception), and what each capture mode refuses.
#include "support/gpu_test.hpp"
#include "support/graph_warm_up.cuh"
#include "support/kernels.cuh"

#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {
using umsync_test::warm_up_graphs;
struct left {};
struct right {};

using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

}  // namespace

TEST_CASE("a capture_scope destroyed without end() discards the captured work and leaves both streams usable")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  u32 const key = static_cast<u32>(rng());
  umsync::stream<left> const a;
  umsync::stream<right> const b;
  umsync::stream_buffer<u32, left> in(n, a);
  umsync::stream_buffer<u32, left> out(n, a);
  auto const input = umsync_test::random_words(rng, n);
  std::vector<u32> output(n);
  umsync::copy_sync_pageable(in, input, a);
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), a.get()));
  umsync::synchronize(a);
  {
    umsync::capture_scope scope(a);
    auto const cb = scope.fork(b);
    CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::active);
    CHECK(umsync::capture_status_of(b.get()) == umsync::capture_status::active);
    {
      umsync::stream_buffer<u32, left> scratch(n, scope.stream());
      umsync::launch(scope.stream(), grid, umsync_test::xor_with, in, scratch, n, key);
      umsync::copy_async(out, scratch, scope.stream());
    }
    umsync::launch(cb, {}, umsync_test::spin_for, std::uint64_t{1000});
    CHECK(scope.active());
  }  // no end(): the capture ends here and its graph is dropped
  CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::none);
  CHECK(umsync::capture_status_of(b.get()) == umsync::capture_status::none);
  CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
  umsync::copy_sync_pageable(output, out, a);
  std::size_t untouched = 0;
  for (u32 word : output) {
    untouched += word == 0xA5A5A5A5U ? 1 : 0;
  }
  CHECK(untouched == n);  // the discarded work never ran
  // Both streams run work again.
  umsync::launch(a, grid, umsync_test::xor_with, in, out, n, key);
  umsync::copy_sync_pageable(output, out, a);
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
  umsync::launch(b, {}, umsync_test::spin_for, std::uint64_t{1000});
  umsync::synchronize(b);
}

TEST_CASE("a capture_scope unwinding from an exception ends the capture without throwing")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  umsync::stream<left> const a;
  int const strict_before = umsync::detail::capture_registry::strict_on_this_thread();
  auto failing_step = [&] {
    umsync::capture_scope scope(a);
    umsync::stream_buffer<u32, left> scratch(4096, scope.stream());
    umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{1000});
    throw std::runtime_error("the step failed half way");
  };
  CHECK_THROWS_AS(failing_step(), std::runtime_error);
  CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::none);
  CHECK(umsync::detail::capture_registry::strict_on_this_thread() == strict_before);
  CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
  umsync::launch(a, {}, umsync_test::spin_for, std::uint64_t{1000});
  umsync::synchronize(a);
}

TEST_CASE("end() twice and fork() after end() are usage errors; a refused fork leaves the capture going")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  umsync::stream<left> const a;
  umsync::stream<right> const b;
  umsync::capture_scope scope(a);
  CHECK(scope.mode() == umsync::capture_mode::global);
  CHECK_THROWS_AS(static_cast<void>(scope.fork(a)), umsync::usage_error);  // the origin itself
  CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::active);
  umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{1000});
  auto const cb = scope.fork(b);
  umsync::launch(cb, {}, umsync_test::spin_for, std::uint64_t{1000});
  auto const cb_again = scope.fork(b);  // a second fork is one more edge, joined once
  CHECK(cb_again == cb);
  umsync::launch(cb_again, {}, umsync_test::spin_for, std::uint64_t{1000});
  umsync::graph const g = scope.end();
  CHECK_FALSE(scope.active());
  CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 3);
  CHECK_THROWS_AS(static_cast<void>(scope.end()), umsync::usage_error);
  CHECK_THROWS_AS(static_cast<void>(scope.fork(b)), umsync::usage_error);
  CHECK(umsync::capture_status_of(b.get()) == umsync::capture_status::none);
  umsync::graph_exec exec(g);
  exec.launch(a);
  umsync::synchronize(a);
}

TEST_CASE("capture modes decide which stream-less unsafe calls are refused, on this thread and on others")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  umsync::stream<left> const a;
  auto refused_on_another_thread = [] {
    bool refused = false;
    std::thread([&] { refused = umsync::capture_refuses_unsafe_calls(); }).join();
    return refused;
  };
  CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
  {
    umsync::capture_scope scope(a, umsync::capture_mode::global);
    CHECK(umsync::capture_refuses_unsafe_calls());
    CHECK_THROWS_AS(umsync::check_not_capturing("cudaMalloc"), umsync::capture_error);
    CHECK(refused_on_another_thread());  // a global capture reaches every global-mode thread
    CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::active);
    umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{1000});
    umsync::graph const g = scope.end();
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 1);
  }
  CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
  {
    umsync::capture_scope scope(a, umsync::capture_mode::per_thread);
    CHECK(scope.mode() == umsync::capture_mode::per_thread);
    CHECK(umsync::capture_refuses_unsafe_calls());
    CHECK_FALSE(refused_on_another_thread());  // per-thread captures leave other threads alone
    umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{1000});
    umsync::graph const g = scope.end();
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 1);
  }
  {
    umsync::capture_scope scope(a, umsync::capture_mode::relaxed);
    CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
    CHECK_FALSE(refused_on_another_thread());
    // Relaxed: the runtime lets cudaMalloc through, and the capture stays valid.
    void* memory = nullptr;
    UMSYNC_CUDA_CHECK(cudaMalloc(&memory, std::size_t{1} << 20));
    CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::active);
    umsync::launch(scope.stream(), {}, umsync_test::spin_for, std::uint64_t{1000});
    umsync::graph const g = scope.end();
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 1);
    UMSYNC_CUDA_CHECK(cudaFree(memory));
  }
  CHECK_FALSE(umsync::capture_refuses_unsafe_calls());
}

TEST_CASE("copies, launches and stream buffers on a capturing stream become memcpy, kernel and memory nodes")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  u32 const key = static_cast<u32>(rng());
  {
    umsync::stream<left> const a;
    umsync::stream_buffer<u32, left> in(n, a);
    umsync::stream_buffer<u32, left> out(n, a);
    umsync::graph const g = [&] {
      umsync::capture_scope scope(a);
      auto const cs = scope.stream();
      {
        umsync::stream_buffer<u32, left> staged(n, cs);
        umsync::copy_async(staged, in, cs);
        umsync::launch(cs, grid, umsync_test::xor_with, staged, out, n, key);
      }  // staged is freed before end(), so its free node is in the graph
      return scope.end();
    }();
    CHECK(g.count_nodes(cudaGraphNodeTypeMemcpy) == 1);
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 1);
    CHECK(g.count_nodes(cudaGraphNodeTypeMemAlloc) == 1);
    CHECK(g.count_nodes(cudaGraphNodeTypeMemFree) == 1);
    umsync::graph_exec exec(g);
    std::vector<u32> output(n);
    for (int replay = 0; replay < 2; ++replay) {
      auto const input = umsync_test::random_words(rng, n);
      umsync::copy_sync_pageable(in, input, a);
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), a.get()));
      exec.launch(a);
      umsync::copy_sync_pageable(output, out, a);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wrong += output[i] != (input[i] ^ key) ? 1 : 0;
      }
      CHECK(wrong == 0);
    }
  }
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  umsync::trim_graph_memory(umsync::current_device());
}

TEST_CASE("end() refuses a capture whose allocation would outlive the graph")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  umsync::stream<left> const a;
  umsync::capture_scope scope(a);
  // What a stream_buffer still alive at end() leaves behind: an allocation node with no
  // free node. Raw here, so no destructor frees it afterwards.
  void* escaping = nullptr;
  UMSYNC_CUDA_CHECK(cudaMallocAsync(&escaping, std::size_t{1} << 20, scope.stream().get()));
  UMSYNC_CUDA_CHECK(cudaMemsetAsync(escaping, 0, std::size_t{1} << 20, scope.stream().get()));
  bool refused = false;
  try {
    static_cast<void>(scope.end());
  } catch (umsync::usage_error const& error) {
    refused = true;
    CHECK(std::string(error.what()).find("still live at end()") != std::string::npos);
  }
  CHECK(refused);
  CHECK_FALSE(scope.active());
  CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::none);
  umsync::launch(a, {}, umsync_test::spin_for, std::uint64_t{1000});
  umsync::synchronize(a);
}
