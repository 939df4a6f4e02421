// Rule: umsync/separate_compilation.hpp defines umsync's compiled part, so it must be the first
// umsync header of its file: an umsync header included before it would already have been read
// without the part's bodies.
// expect-error: umsync: include <umsync/separate_compilation.hpp> before any other umsync header, in a file of its own (docs/compile-cost.md)
#if !defined(UMSYNC_CF_CONTROL)
#  include <umsync/error.hpp>
#endif
#include <umsync/separate_compilation.hpp>
