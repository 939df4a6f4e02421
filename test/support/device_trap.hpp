// Device-side traps checked from a child process (test/support/child_process.hpp): the child
// runs a kernel that must trap and prints the launch's status; the parent requires a failed
// launch and the trap's message. For the Hopper device code (clusters, transaction barriers,
// bulk copies, pipelines), which needs compute capability 9.0.
#pragma once

#include "support/child_process.hpp"

#include <doctest/doctest.h>
#include <umsync/cuda_tool.hpp>
#include <umsync/error.hpp>

#include <cuda_runtime.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>
#include <vector>

namespace umsync_test {

/// True on a device of compute capability 9.0 or newer.
inline bool device_is_sm90()
{
  int device = 0;
  int major = 0;
  UMSYNC_CUDA_CHECK(cudaGetDevice(&device));
  UMSYNC_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  return major >= 9;
}

/// In the child, after the launch: waits for the device and prints its status for the parent.
inline void print_child_status()
{
  cudaError_t const status = cudaDeviceSynchronize();
  std::printf("CHILD-STATUS: %s\n", cudaGetErrorName(status));
  std::fflush(stdout);
}

/// Runs `child_case` in a child process; requires a failed launch and every piece of `expected`
/// in the child's output. Says why and checks nothing under a CUDA tool (it would report the
/// deliberate trap) or on a device below compute capability 9.0.
inline void expect_child_trap(char const* child_case, std::vector<std::string> const& expected)
{
  if (umsync::cuda_tool_attached()) {
    MESSAGE("a CUDA tool instruments this process: it would report the deliberate trap; not run here");
    return;
  }
  if (!device_is_sm90()) {
    MESSAGE("needs compute capability 9.0 or newer");
    return;
  }
  int status = 0;
  std::string const output = run_own_case(child_case, status);
  INFO("child output:\n" << output);
  REQUIRE(WIFEXITED(status));
  CHECK(output.find("CHILD-STATUS: ") != std::string::npos);
  CHECK(output.find("CHILD-STATUS: cudaSuccess") == std::string::npos);
  for (std::string const& piece : expected) {
    CHECK(output.find(piece) != std::string::npos);
  }
}

}  // namespace umsync_test
