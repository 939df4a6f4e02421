// Host tests of umsync/cuda_tool.hpp: the environment variables a CUDA tool sets are what
// cuda_tool_attached() reads.
#include <doctest/doctest.h>
#include <umsync/cuda_tool.hpp>

#include <cstdlib>

#include <unistd.h>  // after cuda_tool.hpp, whose own declaration of environ must agree with it

TEST_CASE("cuda_tool_attached reads the variables compute-sanitizer and injection tools set")
{
  bool const before = umsync::cuda_tool_attached();
  if (before) {
    MESSAGE("this process already runs under a CUDA tool: only the positive cases can be checked");
  }
  REQUIRE(setenv("UMSYNC_PROBE_SANITIZER_LAYER", "1", 1) == 0);
  CHECK(umsync::cuda_tool_attached());
  REQUIRE(unsetenv("UMSYNC_PROBE_SANITIZER_LAYER") == 0);
  CHECK(umsync::cuda_tool_attached() == before);

  char const* injection = std::getenv("CUDA_INJECTION64_PATH");
  if (injection == nullptr) {
    REQUIRE(setenv("CUDA_INJECTION64_PATH", "/nonexistent/libinjection.so", 1) == 0);
    CHECK(umsync::cuda_tool_attached());
    REQUIRE(unsetenv("CUDA_INJECTION64_PATH") == 0);
    CHECK(umsync::cuda_tool_attached() == before);
  }

  // LD_PRELOAD counts only when it names the sanitizer.
  char const* preload = std::getenv("LD_PRELOAD");
  if (preload == nullptr) {
    REQUIRE(setenv("LD_PRELOAD", "", 1) == 0);  // empty: preloads nothing, names nothing
    CHECK(umsync::cuda_tool_attached() == before);
    REQUIRE(unsetenv("LD_PRELOAD") == 0);
  }
}
