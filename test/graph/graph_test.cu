// GPU tests of umsync/graph/graph.hpp, graph_exec.hpp and graph_memory.hpp: a two-stream step
// captured with capture_scope and replayed; graph memory; executable graph update.
#include "support/gpu_test.hpp"
#include "support/graph_warm_up.cuh"
#include "support/kernels.cuh"

#include <umsync/capture/capture_status.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/stream_edge.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {
using umsync_test::warm_up_graphs;
struct left {};
struct right {};

using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 132, .block = 256};

__global__ void add_into(u32 const* x, u32 const* y, u32* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = x[i] + y[i];
  }
}

/// One training-step-like unit of work on two streams: a slow producer on `a`, a consumer on
/// `b` after an edge, independent work on `a`, and a join on `a` after an edge back. Every
/// temporary is a pool allocation freed at the end of the step. Written once for streams and
/// for capturing streams.
template <class A, class B>
void two_stream_step(A const& a, B const& b, umsync::memory_pool_ref pool, umsync::stream_buffer<u32, left> const& in,
                     umsync::stream_buffer<u32, left>& out, std::size_t n, u32 key, std::uint64_t delay_ns)
{
  umsync::stream_edge<left, right> forward(a, b);
  umsync::stream_edge<right, left> back(b, a);
  umsync::stream_buffer<u32, left> affine(n, a);
  umsync::launch(a, grid, umsync_test::delayed_affine, in, affine, n, delay_ns);
  auto affine_on_b = forward.transfer(std::move(affine));
  umsync::stream_buffer<u32, right> keyed(n, b);
  umsync::launch(b, grid, umsync_test::xor_with, affine_on_b, keyed, n, key);
  umsync::stream_buffer<u32, left> side(n, a, pool);
  umsync::launch(a, grid, umsync_test::xor_with, in, side, n, ~key);
  auto keyed_on_a = back.transfer(std::move(keyed));
  umsync::launch(a, grid, add_into, keyed_on_a, side, out, n);
}  // side and keyed_on_a are freed on a, affine_on_b on b

u32 step_reference(u32 x, u32 key) { return ((3U * x + 1U) ^ key) + (x ^ ~key); }

std::size_t count_wrong(std::vector<u32> const& input, std::vector<u32> const& output, u32 key)
{
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < input.size(); ++i) {
    wrong += output[i] != step_reference(input[i], key) ? 1 : 0;
  }
  return wrong;
}

/// For each kernel node, how many kernel nodes precede it through the graph's edges.
std::vector<std::size_t> kernel_ancestor_counts(umsync::graph const& g)
{
  std::map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> parents;
  for (auto const& edge : g.edges()) {
    parents[edge.to].push_back(edge.from);
  }
  std::vector<std::size_t> counts;
  for (cudaGraphNode_t node : g.nodes()) {
    if (umsync::graph::type_of(node) != cudaGraphNodeTypeKernel) {
      continue;
    }
    std::set<cudaGraphNode_t> seen;
    std::vector<cudaGraphNode_t> todo = parents[node];
    std::size_t kernels = 0;
    while (!todo.empty()) {
      cudaGraphNode_t const next = todo.back();
      todo.pop_back();
      if (!seen.insert(next).second) {
        continue;
      }
      kernels += umsync::graph::type_of(next) == cudaGraphNodeTypeKernel ? 1 : 0;
      for (cudaGraphNode_t p : parents[next]) {
        todo.push_back(p);
      }
    }
    counts.push_back(kernels);
  }
  std::sort(counts.begin(), counts.end());
  return counts;
}

}  // namespace

TEST_CASE("a two-stream step captured and replayed matches the stream version, and its memory nodes do not leak")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  std::size_t const free_at_start = umsync_test::memory_baseline::free_bytes();
  auto rng = umsync_test::make_rng();
  int const device = umsync::current_device();
  std::size_t const n = std::size_t{1} << 18;
  u32 const key = static_cast<u32>(rng());
  std::uint64_t const delay_ns = 2'000'000;  // a missing edge lets the consumer overtake
  {
    umsync::memory_pool pool;
    umsync::stream<left> const a;
    umsync::stream<right> const b;
    umsync::stream_buffer<u32, left> in(n, a);
    umsync::stream_buffer<u32, left> out(n, a);
    std::vector<u32> output(n);

    // The stream version.
    auto input = umsync_test::random_words(rng, n);
    umsync::copy_sync_pageable(in, input, a);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), a.get()));
    two_stream_step(a, b, pool, in, out, n, key, delay_ns);
    umsync::copy_sync_pageable(output, out, a);
    CHECK(count_wrong(input, output, key) == 0);

    // The same step captured: b joins by fork, edges become graph edges, stream buffers nodes.
    umsync::graph const g = [&] {
      umsync::capture_scope scope(a);
      auto const cb = scope.fork(b);
      two_stream_step(scope.stream(), cb, pool, in, out, n, key, delay_ns);
      return scope.end();
    }();
    CHECK(umsync::capture_status_of(a.get()) == umsync::capture_status::none);
    CHECK(umsync::capture_status_of(b.get()) == umsync::capture_status::none);
    CHECK(g.count_nodes(cudaGraphNodeTypeKernel) == 4);
    CHECK(g.count_nodes(cudaGraphNodeTypeMemAlloc) == 3);
    CHECK(g.count_nodes(cudaGraphNodeTypeMemFree) == 3);
    // Cross-stream edges: the consumer on b follows the producer on a (forward edge), and the
    // join follows all three other kernels (back edge). Without either, counts differ.
    CHECK(kernel_ancestor_counts(g) == std::vector<std::size_t>{0, 1, 1, 3});

    umsync::reset_graph_memory_high_water(device);
    {
      umsync::graph_exec exec(g);
      for (int replay = 0; replay < 3; ++replay) {
        input = umsync_test::random_words(rng, n);
        umsync::copy_sync_pageable(in, input, a);
        UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0x5A, out.size_bytes(), a.get()));
        exec.launch(a);
        umsync::copy_sync_pageable(output, out, a);
        CHECK(count_wrong(input, output, key) == 0);
      }
      umsync::graph_memory_usage const running = umsync::graph_memory(device);
      MESSAGE("graph memory while the graph_exec lives: used " << running.used << " B, reserved " << running.reserved
                                                               << " B, used high " << running.used_high << " B");
      CHECK(running.used_high >= 2 * n * sizeof(u32));  // the allocation nodes did allocate
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    umsync::graph_memory_usage const after_destroy = umsync::graph_memory(device);
    std::size_t const free_before_trim = umsync_test::memory_baseline::free_bytes();
    // Measured on the H200 (docs/graphs.md): with the graph_exec gone, the graph memory cache
    // still holds the memory (cudaGraphMemAttrUsedMemCurrent and ReservedMemCurrent both stay
    // at 32 MiB here) and the device's free memory stays below its start until a trim.
    CHECK(after_destroy.reserved > 0);
    CHECK(free_before_trim < free_at_start);
    umsync::trim_graph_memory(device);
    umsync::graph_memory_usage const after_trim = umsync::graph_memory(device);
    MESSAGE("graph memory after graph_exec destroyed: used "
            << after_destroy.used << " B, reserved " << after_destroy.reserved << " B, device free " << free_before_trim
            << " B (start " << free_at_start << " B); after trim: reserved " << after_trim.reserved << " B");
    CHECK(after_trim.reserved == 0);
    CHECK(after_trim.used == 0);
  }
  // The baseline checks device free memory is back where it started.
}

TEST_CASE("a 64 MiB graph allocation stays in the graph memory cache after its graph_exec is gone, until trimmed")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  std::size_t const bytes = std::size_t{64} << 20;
  umsync::stream<left> const a;
  umsync::trim_graph_memory(device);
  std::size_t const free_at_start = umsync_test::memory_baseline::free_bytes();
  {
    umsync::graph const g = [&] {
      umsync::capture_scope scope(a);
      {
        umsync::stream_buffer<std::byte, left> big(bytes, scope.stream());
        UMSYNC_CUDA_CHECK(cudaMemsetAsync(big.data(), 1, big.size_bytes(), scope.stream().get()));
      }
      return scope.end();
    }();
    umsync::graph_exec exec(g);
    exec.launch(a);
    exec.launch(a);  // relaunch works: the previous launch freed its allocation
    umsync::synchronize(a);
  }
  UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
  umsync::graph_memory_usage const kept = umsync::graph_memory(device);
  std::size_t const free_kept = umsync_test::memory_baseline::free_bytes();
  umsync::trim_graph_memory(device);
  std::size_t const free_trimmed = umsync_test::memory_baseline::free_bytes();
  MESSAGE("64 MiB graph allocation, graph_exec destroyed: graph memory reserved "
          << kept.reserved << " B, device free memory " << free_at_start - free_kept << " B below start; after trim "
          << free_at_start - free_trimmed);
  // Measured on the H200: the cache keeps all of it until trimmed, then gives all of it back.
  CHECK(kept.reserved >= bytes);
  CHECK(free_at_start - free_kept >= bytes);
  CHECK(umsync::graph_memory(device).reserved == 0);
  CHECK(umsync::graph_memory(device).used == 0);
  CHECK(free_trimmed == free_at_start);
}

namespace {

struct keyed_buffers {
  umsync::stream_buffer<u32, left> const& in_a;
  umsync::stream_buffer<u32, left>& out_a;
  umsync::stream_buffer<u32, right> const& in_b;
  umsync::stream_buffer<u32, right>& out_b;
  std::size_t n;
};

/// Two independent kernels on two streams (no memory nodes); `extra` adds a third kernel,
/// which changes the topology.
umsync::graph capture_keyed(umsync::stream<left> const& a, umsync::stream<right> const& b, keyed_buffers& io, u32 key,
                            bool extra)
{
  umsync::capture_scope scope(a);
  auto const ca = scope.stream();
  auto const cb = scope.fork(b);
  umsync::launch(ca, grid, umsync_test::xor_with, io.in_a, io.out_a, io.n, key);
  umsync::launch(cb, grid, umsync_test::xor_with, io.in_b, io.out_b, io.n, ~key);
  if (extra) {
    umsync::launch(ca, grid, umsync_test::xor_with, io.in_a, io.out_a, io.n, key);
  }
  return scope.end();
}

}  // namespace

TEST_CASE("graph_exec update takes a same-topology re-capture and refuses a changed topology with graph_update_error")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  umsync::stream<left> const a;
  umsync::stream<right> const b;
  umsync::stream_buffer<u32, left> in_a(n, a);
  umsync::stream_buffer<u32, left> out_a(n, a);
  umsync::stream_buffer<u32, right> in_b(n, b);
  umsync::stream_buffer<u32, right> out_b(n, b);
  auto const input_a = umsync_test::random_words(rng, n);
  auto const input_b = umsync_test::random_words(rng, n);
  umsync::copy_sync_pageable(in_a, input_a, a);
  umsync::copy_sync_pageable(in_b, input_b, b);
  keyed_buffers io{in_a, out_a, in_b, out_b, n};
  std::vector<u32> output_a(n);
  std::vector<u32> output_b(n);
  auto run_and_count_wrong = [&](umsync::graph_exec const& exec, u32 key) {
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out_a.data(), 0xA5, out_a.size_bytes(), a.get()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out_b.data(), 0xA5, out_b.size_bytes(), b.get()));
    umsync::synchronize(b);
    exec.launch(a);
    umsync::copy_sync_pageable(output_a, out_a, a);  // the launch's b branch is joined into a
    umsync::copy_sync_pageable(output_b, out_b, b);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += output_a[i] != (input_a[i] ^ key) ? 1 : 0;
      wrong += output_b[i] != (input_b[i] ^ ~key) ? 1 : 0;
    }
    return wrong;
  };

  u32 const first_key = static_cast<u32>(rng());
  u32 const second_key = first_key ^ 0x9E3779B9U;
  umsync::graph const first = capture_keyed(a, b, io, first_key, false);
  umsync::graph_exec exec(first);
  exec.upload(a);
  CHECK(run_and_count_wrong(exec, first_key) == 0);

  umsync::graph const same_topology = capture_keyed(a, b, io, second_key, false);
  exec.update(same_topology);
  CHECK(run_and_count_wrong(exec, second_key) == 0);

  umsync::graph const changed = capture_keyed(a, b, io, first_key, true);
  CHECK(changed.count_nodes(cudaGraphNodeTypeKernel) == 3);
  bool refused = false;
  try {
    exec.update(changed);
  } catch (umsync::graph_update_error const& error) {
    refused = true;
    CHECK(error.topology_changed());
    CHECK(std::string(error.what()).find("topology changed") != std::string::npos);
  }
  CHECK(refused);
  // The refused update left the executable graph as it was: still the second key.
  CHECK(run_and_count_wrong(exec, second_key) == 0);
  // A new executable graph is the way to run the changed topology.
  umsync::graph_exec replacement(changed);
  CHECK(run_and_count_wrong(replacement, first_key) == 0);
}

TEST_CASE("a graph_exec with memory nodes refuses update with graph_update_error and keeps running its own capture")
{
  warm_up_graphs();
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  int const device = umsync::current_device();
  std::size_t const n = std::size_t{1} << 16;
  u32 const first_key = static_cast<u32>(rng());
  u32 const second_key = ~first_key;
  {
    umsync::memory_pool pool;
    umsync::stream<left> const a;
    umsync::stream<right> const b;
    umsync::stream_buffer<u32, left> in(n, a);
    umsync::stream_buffer<u32, left> out(n, a);
    auto capture_step = [&](u32 key) {
      umsync::capture_scope scope(a);
      auto const cb = scope.fork(b);
      two_stream_step(scope.stream(), cb, pool, in, out, n, key, 0);
      return scope.end();
    };
    umsync::graph const first = capture_step(first_key);
    umsync::graph const second = capture_step(second_key);
    CHECK(first.has_memory_nodes());
    CHECK(second.has_memory_nodes());
    {
      umsync::graph_exec exec(first);
      bool refused = false;
      try {
        exec.update(second);
      } catch (umsync::graph_update_error const& error) {
        refused = true;
        CHECK(error.result() == cudaGraphExecUpdateErrorNotSupported);
        CHECK_FALSE(error.topology_changed());
        CHECK(std::string(error.what()).find("memory nodes") != std::string::npos);
      }
      CHECK(refused);
      auto const input = umsync_test::random_words(rng, n);
      std::vector<u32> output(n);
      umsync::copy_sync_pageable(in, input, a);
      UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xA5, out.size_bytes(), a.get()));
      exec.launch(a);
      umsync::copy_sync_pageable(output, out, a);
      CHECK(count_wrong(input, output, first_key) == 0);
    }
    {
      // The way forward: a new executable graph from the re-capture (the first one is gone:
      // a graph with memory nodes may have one graph_exec at a time).
      umsync::graph_exec replacement(second);
      auto const input = umsync_test::random_words(rng, n);
      std::vector<u32> output(n);
      umsync::copy_sync_pageable(in, input, a);
      replacement.launch(a);
      umsync::copy_sync_pageable(output, out, a);
      CHECK(count_wrong(input, output, second_key) == 0);
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    umsync::trim_graph_memory(device);
  }
}
