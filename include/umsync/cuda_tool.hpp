// umsync/cuda_tool.hpp: whether a CUDA tool (compute-sanitizer, a profiler) instruments this
// process.
//
// Some correct code reads differently under a tool: racecheck orders shared memory by barriers
// only and reports every producer/consumer hand-off through barrier.arrive as a hazard, and
// tools that serialize launches keep a running kernel from seeing a host signal. Code that
// offers such a path can take the plain one under a tool:
//
//   bool const specialized = !umsync::cuda_tool_attached();
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

// The process's environment, declared as POSIX says a program declares it, rather than through
// <unistd.h> (about 1.3k preprocessed lines in the umbrella, docs/compile-cost.md). Compatible with
// <unistd.h>'s declaration (test/cuda_tool_host_test.cpp includes both).
extern "C" {
extern char** environ;
}

UMSYNC_NAMESPACE_BEGIN

/// True when the environment shows a CUDA tool injected into this process: compute-sanitizer
/// sets variables whose names contain SANITIZER and preloads its library; injection tools set
/// CUDA_INJECTION64_PATH. A heuristic over the environment, read on every call.
[[nodiscard]] inline bool cuda_tool_attached() noexcept
{
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    detail::text_view const variable(*entry);
    detail::text_view const name = variable.substr(0, variable.find("="));
    if (name.find("SANITIZER") != detail::text_view::npos || name == "CUDA_INJECTION64_PATH" ||
        (name == "LD_PRELOAD" && variable.find("sanitizer") != detail::text_view::npos)) {
      return true;
    }
  }
  return false;
}

UMSYNC_NAMESPACE_END
