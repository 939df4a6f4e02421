// Rule: a heap_array (umsync's growable array, in place of std::vector) holds elements that
// move and are destroyed without throwing, so that growing never leaves a half-moved array.
// expect-error: umsync: a heap_array holds elements that move and are destroyed without throwing
#include <umsync/detail/heap_array.hpp>

struct element {
  element() = default;
#if defined(UMSYNC_CF_CONTROL)
  element(element&&) noexcept = default;
#else
  element(element&&) {}  // may throw
#endif
};

void grow()
{
  umsync::detail::heap_array<element> array;
  array.emplace_back();
}
