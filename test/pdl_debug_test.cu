// GPU test of the UMSYNC_DEBUG ordering checker with dependent launches (launch_dependent,
// pdl.hpp): the checker notes a dependent kernel's pending and independent memory as it notes a
// plain launch's, so a use of that memory on another stream without an edge is still reported;
// and an independent<T> claim on memory the primary launch writes is refused (usage_error).
#include "support/gpu_test.hpp"

#include <umsync/umsync.hpp>

#include <cstdint>
#include <source_location>
#include <string>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct compute {};

__global__ void fill(std::uint32_t* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = static_cast<std::uint32_t>(i);
  }
}

__global__ void dependent_copy(umsync::pending<std::uint32_t const> in, umsync::independent<std::uint32_t> out,
                               std::size_t n)
{
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in.after(done)[i];
  }
}
}  // namespace

TEST_CASE("a dependent launch's memory used on another stream without an edge throws ordering_error")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const first;
  umsync::stream<compute> const second;  // same tag: the types allow it, the checker does not
  std::size_t const n = 1 << 16;
  {
    umsync::stream_buffer<std::uint32_t, compute> in(n, first);
    umsync::stream_buffer<std::uint32_t, compute> out(n, first);
    umsync::launch(first, {.grid = 64, .block = 256}, fill, in, n);
    umsync::launch_dependent(first, {.grid = 64, .block = 256}, dependent_copy, in, out, n);
    unsigned const line = std::source_location::current().line() + 2;
    try {
      umsync::launch(second, {.grid = 64, .block = 256}, fill, out, n);  // writes what the dependent wrote
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      CHECK(e.earlier().stream == static_cast<void const*>(first.get()));
      CHECK(e.later().stream == static_cast<void const*>(second.get()));
      CHECK(e.later().where.line() == line);
    }
    first.synchronize();  // the host waited for `first`: the same launch is ordered now
    CHECK_NOTHROW(umsync::launch(second, {.grid = 64, .block = 256}, fill, out, n));
    second.synchronize();
  }
  first.synchronize();
}

TEST_CASE("an independent<T> claim on memory the primary launch writes throws usage_error until the host waits")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const s;
  std::size_t const n = 1 << 16;
  {
    umsync::stream_buffer<std::uint32_t, compute> in(n, s);
    umsync::stream_buffer<std::uint32_t, compute> out(n, s);
    umsync::launch(s, {.grid = 64, .block = 256}, fill, in, n);
    umsync::launch(s, {.grid = 64, .block = 256}, fill, out, n);  // the primary writes `out`
    try {
      // `out` declared independent: the dependent may write it while the primary still does.
      umsync::launch_dependent(s, {.grid = 64, .block = 256}, dependent_copy, in, out, n);
      FAIL("no usage_error");
    } catch (umsync::usage_error const& e) {
      std::string const what = e.what();
      CHECK(what.find("an independent<T> parameter writes memory that earlier work on the stream, which this "
                      "dependent launch may overlap, writes") != std::string::npos);
    }
    s.synchronize();  // the primary has completed: the claim holds now
    CHECK_NOTHROW(umsync::launch_dependent(s, {.grid = 64, .block = 256}, dependent_copy, in, out, n));
    s.synchronize();
  }
}
