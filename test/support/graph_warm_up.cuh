// Graph helpers the GPU tests share: one warm-up that brings graph memory to its steady state
// before a test takes its memory baseline.
#pragma once

#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/capture/capture_status.hpp>
#include <umsync/device.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <cstdint>

namespace umsync_test {
// Internal linkage: each test file gets its own copy, so several may include this.
namespace {

struct graph_warm_up_tag {};

// The first capture with a fork, the first graph with memory nodes, its upload and launches set
// up driver state that stays for the process; do that before any test takes its memory baseline
// (as gpu_main's warm-up does for streams and pools).
void warm_up_graphs()
{
  static bool const done = [] {
    umsync::stream<graph_warm_up_tag> s;
    umsync::stream<graph_warm_up_tag> side;
    umsync::graph g = [&] {
      umsync::capture_scope scope(s);
      auto cs = scope.stream();
      auto cside = scope.fork(side);
      {
        umsync::stream_buffer<std::uint32_t, graph_warm_up_tag> scratch(1024, cs);
        UMSYNC_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, scratch.size_bytes(), cs.get()));
        umsync::launch(cside, {}, umsync_test::spin_for, std::uint64_t{0});
      }
      return scope.end();
    }();
    {
      umsync::graph_exec exec(g);
      exec.upload(s);
      exec.launch(s);
      exec.launch(s);
      umsync::synchronize(s);
    }
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    umsync::trim_graph_memory(umsync::current_device());
    return true;
  }();
  static_cast<void>(done);
}

}  // namespace
}  // namespace umsync_test
