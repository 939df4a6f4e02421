// Rule: a reinterpreting view keeps read-only memory read-only. reinterpret_span of a const
// buffer (or a span of const) as writable elements names the rule, and only the rule.
// expect-error: umsync: reinterpret_span of read-only memory must be a span of const (reinterpret_span<U const>)
#include <umsync/memory/reinterpret_span.hpp>
#include <umsync/memory/stream_buffer.hpp>

#include <cstddef>

struct compute {};

std::size_t vectors(umsync::stream_buffer<float, compute> const& weights)
{
#if defined(UMSYNC_CF_CONTROL)
  auto const view = umsync::reinterpret_span<float4 const>(weights);
#else
  auto const view = umsync::reinterpret_span<float4>(weights);
#endif
  return view.size();
}
