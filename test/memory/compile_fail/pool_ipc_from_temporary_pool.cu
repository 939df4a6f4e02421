// Rule: a memory_pool_ref is taken from a named memory_pool only. Exporting a temporary pool
// hands out a descriptor of a pool destroyed at the end of the statement, and an
// imported_allocation from a temporary imported pool maps memory through a pool that is gone
// before the allocation is used: both refused where the pool becomes a handle
// (memory/compile_fail/exec_policy_from_temporary_pool.cu). Named pools compile.
// expect-error: umsync: a memory_pool_ref is taken from a named memory_pool only: a temporary pool is destroyed at the end of its statement, and the policy, buffer or export holding its handle would use a destroyed pool; name the pool as a variable that outlives its users
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/pool_ipc.hpp>

void use(int fd, umsync::allocation_token const& token)
{
#if defined(UMSYNC_CF_CONTROL)
  umsync::memory_pool const exported({.exportable = true});
  umsync::file_descriptor const descriptor = umsync::export_pool(exported);
  umsync::memory_pool const imported = umsync::import_pool(fd);
  umsync::imported_allocation<float> const allocation(imported, token, 64);
#else
  umsync::file_descriptor const descriptor = umsync::export_pool(umsync::memory_pool({.exportable = true}));
  umsync::imported_allocation<float> const allocation(umsync::import_pool(fd), token, 64);
#endif
  static_cast<void>(descriptor);
  static_cast<void>(allocation);
}
