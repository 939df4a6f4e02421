// Entry point of the GPU tests. Without a usable device the whole executable reports itself
// skipped (exit 77, which ctest shows as "Skipped") and prints why; with UMSYNC_REQUIRE_GPU=1
// the same condition is a failure, so a GPU run cannot pass by skipping.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <umsync/device.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>

int main(int argc, char** argv)
{
  umsync::device_probe const probe = umsync::probe_devices();
  if (!probe.usable()) {
    char const* require = std::getenv("UMSYNC_REQUIRE_GPU");
    if (require != nullptr && std::string_view(require) == "1") {
      std::fprintf(stderr, "FAILED: UMSYNC_REQUIRE_GPU=1 but %s\n", probe.reason().c_str());
      return 1;
    }
    std::printf("SKIPPED: %s (set UMSYNC_REQUIRE_GPU=1 to make this a failure)\n", probe.reason().c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
