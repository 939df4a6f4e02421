// Rule: a memory_pool_ref is taken from a named memory_pool only. A stream_buffer from a
// pool allocates from it when made, and the pool is destroyed at the end of the statement while
// the buffer lives on: refused where the pool becomes a handle, as for an exec_policy
// (memory/compile_fail/exec_policy_from_temporary_pool.cu), and so for ref() of a temporary too. A named pool and
// its handle compile.
// expect-error: umsync: a memory_pool_ref is taken from a named memory_pool only: a temporary pool is destroyed at the end of its statement, and the policy, buffer or export holding its handle would use a destroyed pool; name the pool as a variable that outlives its users
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/stream.hpp>

#include <utility>

struct compute {};

void use(umsync::stream<compute> const& s, umsync::memory_pool& pool)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::stream_buffer<float, compute> x(64, s, pool);
  umsync::stream_buffer<float, compute> y(64, s, pool.ref());
  umsync::memory_pool_ref const handle = pool;
  static_cast<void>(handle);
#else
  umsync::stream_buffer<float, compute> x(64, s, umsync::memory_pool{});
  umsync::memory_pool_ref const handle = std::move(pool).ref();
  static_cast<void>(handle);
#endif
}
