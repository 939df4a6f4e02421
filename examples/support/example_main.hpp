// What every example's main() does around its work: say plainly when no GPU is usable, turn an
// exception into a message, and pass the work's exit code through (0 only when its output was
// checked and right).
//
//   int main() { return umsync_example::run("stream_handoff", [](umsync::device_probe const&) { ... }); }
#pragma once

#include <umsync/device.hpp>

#include <cstdio>
#include <exception>
#include <string>

namespace umsync_example {

template <class Work>
int run(char const* name, Work&& work)
{
  umsync::device_probe const probe = umsync::probe_devices();
  if (!probe.usable()) {
    std::fprintf(stderr, "%s: %s; this example needs a GPU\n", name, probe.reason().c_str());
    return 1;
  }
  try {
    return work(probe);
  } catch (std::exception const& failure) {
    std::fprintf(stderr, "%s: FAILED: %s\n", name, failure.what());
    return 1;
  }
}

}  // namespace umsync_example
