// The program that docs/install.md's nvcc command lines build (as app.cu), release and debug: it
// says which it is, so the package test can tell that -DUMSYNC_DEBUG reached umsync.
#include <umsync/umsync.hpp>

#include <cstdio>
#include <string>

static_assert(__cplusplus >= 202002L, "the documented command line must give C++20 to nvcc");

struct compute {};

int main()
{
  umsync::device_probe const probe = umsync::probe_devices();
  std::printf("umsync %d nvcc consumer, UMSYNC_DEBUG %s: %s\n", UMSYNC_VERSION, umsync::debug_build ? "on" : "off",
              probe.reason().c_str());
  if (probe.usable()) {
    umsync::stream<compute> s;
    umsync::memory_pool pool;
    umsync::stream_buffer<float, compute> x(256, s, pool);
    s.synchronize();
  }
  return 0;
}
