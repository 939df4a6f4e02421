// Rule: umsync's describing functions (device_probe::reason(), managed_location::describe(),
// allocation_token::to_text(), graph_update_error::describe(), the phase plans' describe())
// return a std::string, and umsync's headers leave <string> out: where one is called without
// <string>, the error names the include instead of an incomplete type.
// expect-error: umsync: this function returns a std::string; #include <string> where it is called (umsync's headers leave <string> out, docs/compile-cost.md)
#include <umsync/device.hpp>

#if defined(UMSYNC_CF_CONTROL)
#  include <string>
#endif

#include <cstdio>

void print_devices()
{
  umsync::device_probe const probe = umsync::probe_devices();
  std::printf("%s\n", probe.reason().c_str());
}
