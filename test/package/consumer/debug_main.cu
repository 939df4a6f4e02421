// A consumer that links umsync::debug: UMSYNC_DEBUG reaches its compile, so umsync's run-time
// checks are on (and umsync's debug inline namespace is the one in use).
#include <umsync/config.hpp>

#include <cstdio>

static_assert(umsync::debug_build, "umsync::debug must define UMSYNC_DEBUG");
#if !defined(UMSYNC_DEBUG)
#  error "umsync::debug must define UMSYNC_DEBUG"
#endif

int main()
{
  std::printf("umsync %d debug consumer: UMSYNC_DEBUG is on\n", UMSYNC_VERSION);
  return 0;
}
