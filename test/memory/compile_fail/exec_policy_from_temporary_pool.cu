// Rule: a memory_pool_ref is taken from a named memory_pool only. An exec_policy keeps the handle
// of the pool its temporaries come from, and a temporary pool is destroyed at the end of the
// statement that makes the policy: the algorithm would then allocate from a destroyed pool.
// Refused where the pool becomes a handle (memory_pool's conversion), so the rule holds for every
// holder of a handle. A named pool, its handle, and a temporary memory_pool_ref (a handle only)
// compile.
// expect-error: umsync: a memory_pool_ref is taken from a named memory_pool only: a temporary pool is destroyed at the end of its statement, and the policy, buffer or export holding its handle would use a destroyed pool; name the pool as a variable that outlives its users
#include <umsync/exec_policy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/stream.hpp>

struct compute {};

void use(umsync::stream<compute> const& s, umsync::memory_pool const& pool)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::exec_policy const from_pool(s, pool);
  umsync::exec_policy const from_ref(s, pool.ref());
  umsync::exec_policy_nosync const from_handle(s, umsync::memory_pool_ref(pool));
  static_cast<void>(from_pool);
  static_cast<void>(from_ref);
  static_cast<void>(from_handle);
#else
  umsync::exec_policy const policy(s, umsync::memory_pool{});
  static_cast<void>(policy);
#endif
}
