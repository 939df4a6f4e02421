// Host tests of umsync/launch.hpp that need no device: a failed launch names the caller's line,
// and a cluster shape the grid cannot hold is refused before CUDA sees it. On a machine without
// a driver every CUDA call fails; on one with a GPU the host function below is no kernel. Either
// way cudaLaunchKernel fails, which is what the first case needs.
#include <doctest/doctest.h>
#include <umsync/launch.hpp>

#include <cstddef>
#include <source_location>
#include <string>
#include <type_traits>

namespace {
struct compute {};

void not_a_kernel(float*, std::size_t) {}
void dependent_not_a_kernel(umsync::pending<float const>, umsync::independent<float>, std::size_t) {}

umsync::stream_view<compute> per_thread_stream() { return umsync::stream_view<compute>{cudaStreamPerThread}; }

bool contains(std::string const& text, std::string const& part) { return text.find(part) != std::string::npos; }

// The PDL parameter types are one pointer, and only launch fills one from memory.
static_assert(sizeof(umsync::pending<float const>) == sizeof(float const*));
static_assert(sizeof(umsync::independent<double>) == sizeof(double*));
static_assert(!std::is_convertible_v<umsync::pending<float>, umsync::independent<float>>);
static_assert(!std::is_constructible_v<umsync::pending<float>, float*>);
}  // namespace

TEST_CASE("a failed launch reports the caller's line, not launch.hpp's")
{
  float* nothing = nullptr;
  std::source_location const here = std::source_location::current();
  try {
    umsync::launch(per_thread_stream(), {.grid = 1, .block = 32}, not_a_kernel, nothing, std::size_t{0});
    FAIL("a host function launched as a kernel did not fail");
  } catch (umsync::cuda_error const& e) {
    CHECK(e.where().line() == here.line() + 2);
    CHECK(contains(e.what(), "launch_host_test.cpp"));
    CHECK_FALSE(contains(e.what(), "launch.hpp"));
  }
}

TEST_CASE("a cluster shape the grid is not divisible by is refused with both shapes, before CUDA")
{
  float* nothing = nullptr;
  try {
    umsync::launch(per_thread_stream(), {.grid = {6, 1, 1}, .block = 32, .cluster = {4, 1, 1}}, not_a_kernel, nothing,
                   std::size_t{0});
    FAIL("no invalid_argument");
  } catch (umsync::invalid_argument const& e) {
    std::string const what = e.what();
    CHECK(what.starts_with("umsync: launch at "));
    CHECK(contains(what, "launch_host_test.cpp"));
    CHECK(contains(what, "grid {6, 1, 1} is not divisible by the cluster shape {4, 1, 1}"));
  }
  // The same for a dependent launch, in y.
  try {
    umsync::launch_dependent(per_thread_stream(), {.grid = {2, 3, 1}, .block = 32, .cluster = {1, 2, 1}},
                             dependent_not_a_kernel, nothing, nothing, std::size_t{0});
    FAIL("no invalid_argument");
  } catch (umsync::invalid_argument const& e) {
    CHECK(std::string(e.what()).starts_with("umsync: launch_dependent at "));
    CHECK(contains(e.what(), "grid {2, 3, 1} is not divisible by the cluster shape {1, 2, 1}"));
  }
}

TEST_CASE("a cluster shape with a zero extent is refused")
{
  float* nothing = nullptr;
  try {
    umsync::launch(per_thread_stream(), {.grid = 4, .block = 32, .cluster = {2, 0, 1}}, not_a_kernel, nothing,
                   std::size_t{0});
    FAIL("no invalid_argument");
  } catch (umsync::invalid_argument const& e) {
    CHECK(contains(e.what(), "cluster shape {2, 0, 1} has a zero extent"));
  }
}
