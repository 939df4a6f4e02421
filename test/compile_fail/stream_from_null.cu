// Rule: the legacy default stream is an explicit choice. A stream or a view cannot be made
// from 0 or nullptr, where it would silently mean the legacy stream.
// expect-error: umsync: a stream cannot be made from 0 or nullptr; the legacy default stream is an explicit choice: umsync::legacy_default_stream()
#include <umsync/stream.hpp>

void use()
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream<> owning{};
  auto view = umsync::legacy_default_stream();
#else
  umsync::stream<> owning{0};
  umsync::stream_view<> view{nullptr};
#endif
  static_cast<void>(owning);
  static_cast<void>(view);
}
