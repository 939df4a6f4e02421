// umsync/detail/launch_check.hpp: what a cluster or programmatic dependent launch is checked
// against before CUDA sees it (launch.hpp): the kernel's and device's facts, read once per
// kernel and block shape, and the refusals, each composed only when a launch is refused. A
// cluster shape is a run-time value, so every translation unit that launches compiles this,
// unless the program links umsync's compiled part (UMSYNC_SEPARATE_COMPILATION, config.hpp).
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/launch_config.hpp>

#include <cstddef>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// How a launch goes to CUDA: with a cluster shape or as a programmatic dependent launch
/// (through cudaLaunchKernelExC, after check_launch_attributes), or plain (cudaLaunchKernel).
enum class launch_mode { plain, dependent };

/// What a cluster or dependent launch of a kernel needs to know about it and its device, for
/// one block size and dynamic shared memory size.
struct kernel_facts {
  void const* kernel = nullptr;
  int device = -1;
  unsigned block_threads = 0;
  std::size_t shared_bytes = 0;
  int compute_capability_major = 0;
  int ptx_version = 0;                  ///< the virtual architecture it was compiled for, as 10 * major + minor
  int binary_version = 0;               ///< the SASS architecture loaded (JIT-compiled PTX: the device's)
  int required_cluster[3] = {0, 0, 0};  ///< __cluster_dims__, or zeros
  bool non_portable_cluster_size_allowed = false;
  int max_cluster_blocks = 0;  ///< cudaOccupancyMaxPotentialClusterSize
};

kernel_facts read_kernel_facts(void const* kernel, int device, launch_config const& config);

/// The facts of `kernel` on the current device for `config`'s block, read at the first such
/// launch and from a small table afterwards: a launch must not pay three driver queries each
/// time. `fresh` reads them again (a cudaFuncSetAttribute since may have changed them) and
/// records the new reading, which later lookups find first. The table is guarded by a spin
/// lock, not <mutex>: this header is on every launch's include path.
kernel_facts const& facts_of(void const* kernel, launch_config const& config, bool fresh);

/// Why a cluster or dependent launch cannot run as asked; `none` when it can.
enum class launch_refusal : unsigned char {
  none,
  cluster_zero_extent,
  grid_not_divisible,
  needs_hopper,
  wait_compiled_out,
  cluster_dims_differ,
  grid_not_whole_clusters,
  cluster_not_portable,
  cluster_too_large,
};

/// What needs no device: a cluster shape with a zero extent, or one the grid is not divisible
/// by. Checked first, so a bad shape is reported the same with or without a device.
[[nodiscard]] inline launch_refusal shape_refusal(launch_config const& config) noexcept
{
  dim3 const cluster = config.cluster;
  if (cluster.x == 0) {
    return launch_refusal::none;
  }
  if (cluster.y == 0 || cluster.z == 0) {
    return launch_refusal::cluster_zero_extent;
  }
  if (config.grid.x % cluster.x != 0 || config.grid.y % cluster.y != 0 || config.grid.z % cluster.z != 0) {
    return launch_refusal::grid_not_divisible;
  }
  return launch_refusal::none;
}

/// A kernel compiled with __cluster_dims__ launched without a cluster shape: its grid must be made
/// of whole clusters of the compiled shape (CUDA programming guide, thread block clusters: "the
/// grid dimension must be a multiple of cluster size"). `required` is the compiled shape
/// (cudaFuncAttributes::requiredCluster*), zeros for a kernel without one. A launch that gives a
/// shape is compared with `required` by device_refusal (cluster_dims_differ) and checked for
/// divisibility by shape_refusal.
[[nodiscard]] inline launch_refusal compiled_cluster_refusal(int const (&required)[3],
                                                             launch_config const& config) noexcept
{
  if (required[0] <= 0 || required[1] <= 0 || required[2] <= 0 || config.cluster.x != 0) {
    return launch_refusal::none;
  }
  if (config.grid.x % static_cast<unsigned>(required[0]) != 0 ||
      config.grid.y % static_cast<unsigned>(required[1]) != 0 ||
      config.grid.z % static_cast<unsigned>(required[2]) != 0) {
    return launch_refusal::grid_not_whole_clusters;
  }
  return launch_refusal::none;
}

/// Whether the device cannot run `config` of the kernel `facts` describe, and why.
[[nodiscard]] inline launch_refusal device_refusal(kernel_facts const& facts, launch_config const& config,
                                                   launch_mode mode) noexcept
{
  if (facts.compute_capability_major < 9) {
    return launch_refusal::needs_hopper;
  }
  // The wait exists only where the kernel was compiled for compute_90 or newer: PTX of an older
  // virtual architecture, JIT-compiled for this device, has it compiled out (NVIDIA/cccl #9134).
  if (mode == launch_mode::dependent && (facts.ptx_version < 90 || facts.binary_version < 90)) {
    return launch_refusal::wait_compiled_out;
  }
  if (launch_refusal const compiled = compiled_cluster_refusal(facts.required_cluster, config);
      compiled != launch_refusal::none) {
    return compiled;
  }
  dim3 const cluster = config.cluster;
  if (cluster.x == 0) {
    return launch_refusal::none;
  }
  if (facts.required_cluster[0] != 0 && (static_cast<unsigned>(facts.required_cluster[0]) != cluster.x ||
                                         static_cast<unsigned>(facts.required_cluster[1]) != cluster.y ||
                                         static_cast<unsigned>(facts.required_cluster[2]) != cluster.z)) {
    return launch_refusal::cluster_dims_differ;
  }
  unsigned const blocks = cluster.x * cluster.y * cluster.z;
  constexpr unsigned portable_cluster_blocks = 8;  // the CUDA programming guide's portable size
  if (blocks > portable_cluster_blocks && !facts.non_portable_cluster_size_allowed) {
    return launch_refusal::cluster_not_portable;
  }
  if (blocks > static_cast<unsigned>(facts.max_cluster_blocks)) {
    return launch_refusal::cluster_too_large;
  }
  return launch_refusal::none;
}

/// Appends "{x, y, z}".
[[gnu::cold]] void append_dim3(message_text& text, dim3 d) noexcept;

/// Throws invalid_argument for `refusal`, naming the values and the launch's line. Cold and
/// out of line: the accepting path composes no text, and a translation unit compiles one body
/// for every reason (docs/compile-cost.md).
[[noreturn, gnu::cold]] void refuse_launch(launch_refusal refusal, kernel_facts const& facts,
                                           launch_config const& config, launch_mode mode);

/// Refuses, before CUDA sees it, a cluster shape or a programmatic dependent launch that cannot
/// run as asked: invalid_argument naming the values and the launch's line.
void check_launch_attributes(void const* kernel, launch_config const& config, launch_mode mode);

/// A plain launch (no cluster shape, not dependent) of a kernel compiled with __cluster_dims__
/// whose grid is not made of whole clusters: invalid_argument naming the rule, the grid and the
/// compiled shape. Reads the kernel's attributes (cudaFuncGetAttributes), so launch() calls it
/// only where that costs nothing that matters: after CUDA refused the launch (to say why), and
/// before every plain launch in UMSYNC_DEBUG builds. Returns quietly when the attributes cannot
/// be read, so the launch's own error is reported.
void check_compiled_cluster(void const* kernel, launch_config const& config);

// The compiled part of this header (config.hpp: inline here, or compiled once with
// UMSYNC_SEPARATE_COMPILATION).
#if UMSYNC_DETAIL_COMPILED_BODIES

UMSYNC_DETAIL_COMPILED kernel_facts read_kernel_facts(void const* kernel, int device, launch_config const& config)
{
  kernel_facts read;
  read.kernel = kernel;
  read.device = device;
  read.block_threads = config.block.x * config.block.y * config.block.z;
  read.shared_bytes = config.shared_bytes;
  check(cudaDeviceGetAttribute(&read.compute_capability_major, cudaDevAttrComputeCapabilityMajor, device),
        "cudaDeviceGetAttribute(cudaDevAttrComputeCapabilityMajor)", config.where);
  if (read.compute_capability_major < 9) {
    return read;  // refused by the caller; the queries below need a Hopper device
  }
  cudaFuncAttributes attributes{};
  check(cudaFuncGetAttributes(&attributes, kernel), "cudaFuncGetAttributes", config.where);
  read.ptx_version = attributes.ptxVersion;
  read.binary_version = attributes.binaryVersion;
  read.required_cluster[0] = attributes.requiredClusterWidth;
  read.required_cluster[1] = attributes.requiredClusterHeight;
  read.required_cluster[2] = attributes.requiredClusterDepth;
  read.non_portable_cluster_size_allowed = attributes.nonPortableClusterSizeAllowed != 0;
  cudaLaunchConfig_t query{};
  // The largest cluster does not depend on the grid, but the query refuses a grid of partial
  // clusters of the kernel's own __cluster_dims__ (cudaErrorInvalidClusterSize, seen on an H100):
  // ask for one whole cluster then, and leave that refusal to check_compiled_cluster's message.
  bool const compiled_cluster = read.required_cluster[0] != 0;
  query.gridDim = compiled_cluster ? dim3(unsigned(read.required_cluster[0]), unsigned(read.required_cluster[1]),
                                          unsigned(read.required_cluster[2]))
                                   : config.grid;
  query.blockDim = config.block;
  query.dynamicSmemBytes = config.shared_bytes;
  check(cudaOccupancyMaxPotentialClusterSize(&read.max_cluster_blocks, kernel, &query),
        "cudaOccupancyMaxPotentialClusterSize", config.where);
  return read;
}

UMSYNC_DETAIL_COMPILED kernel_facts const& facts_of(void const* kernel, launch_config const& config, bool fresh)
{
  // With one device in the process the current device is 0: the launch then skips
  // cudaGetDevice, a runtime call that would otherwise cost each dependent launch.
  static int const device_count = [&] {
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", config.where);
    return count;
  }();
  int device = 0;
  if (device_count != 1) {
    check(cudaGetDevice(&device), "cudaGetDevice", config.where);
  }
  unsigned const block_threads = config.block.x * config.block.y * config.block.z;
  auto same = [&](kernel_facts const& entry) {
    return entry.kernel == kernel && entry.device == device && entry.block_threads == block_threads &&
           entry.shared_bytes == config.shared_bytes;
  };
  constexpr int capacity = 256;
  static kernel_facts table[capacity];
  static atomic_word<int> size{0};
  static atomic_word<int> lock{0};
  // The last entry this thread used first: a chain of launches of one kernel finds it at once.
  thread_local kernel_facts const* recent = nullptr;
  if (!fresh && recent != nullptr && same(*recent)) [[likely]] {
    return *recent;
  }
  int const known = size.load();
  for (int i = known - 1; !fresh && i >= 0; --i) {  // newest first
    if (same(table[i])) {
      recent = &table[i];
      return table[i];
    }
  }
  kernel_facts const read = read_kernel_facts(kernel, device, config);
  while (lock.exchange(1) != 0) {
  }
  int const now = size.load();
  if (now == capacity) {  // full: keep answering, only without the table
    lock.exchange(0);
    thread_local kernel_facts overflow;
    overflow = read;
    return overflow;
  }
  table[now] = read;
  size.exchange(now + 1);  // published after the entry is written (sequentially consistent)
  lock.exchange(0);
  recent = &table[now];
  return table[now];
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void append_dim3(message_text& text, dim3 d) noexcept
{
  text.append_parts('{', d.x, ", ", d.y, ", ", d.z, '}');
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void refuse_launch(launch_refusal refusal, kernel_facts const& facts,
                                                            launch_config const& config, launch_mode mode)
{
  message_text why;
  switch (refusal) {
    case launch_refusal::cluster_zero_extent:
      why.append("cluster shape ");
      append_dim3(why, config.cluster);
      why.append(" has a zero extent; give every extent (at least 1)");
      break;
    case launch_refusal::grid_not_divisible:
      why.append("grid ");
      append_dim3(why, config.grid);
      why.append(" is not divisible by the cluster shape ");
      append_dim3(why, config.cluster);
      break;
    case launch_refusal::needs_hopper:
      why.append_parts(config.cluster.x != 0 ? "thread block clusters" : "programmatic dependent launch",
                       " need a device of compute capability 9.0 or newer; device ", facts.device, " is ",
                       facts.compute_capability_major, ".x");
      break;
    case launch_refusal::wait_compiled_out:
      why.append_parts("the kernel was compiled for compute_", facts.ptx_version, " (sm_", facts.binary_version,
                       " code on device ", facts.device,
                       "), where griddepcontrol does not exist and its wait for earlier work is compiled out "
                       "(NVIDIA/cccl #9134); build it for sm_90 or newer, or launch it with umsync::launch");
      break;
    case launch_refusal::cluster_dims_differ:
      why.append("cluster shape ");
      append_dim3(why, config.cluster);
      why.append(" differs from the kernel's __cluster_dims__ ");
      append_dim3(why, dim3(static_cast<unsigned>(facts.required_cluster[0]),
                            static_cast<unsigned>(facts.required_cluster[1]),
                            static_cast<unsigned>(facts.required_cluster[2])));
      break;
    case launch_refusal::grid_not_whole_clusters:
      why.append("grid ");
      append_dim3(why, config.grid);
      why.append(" is not a multiple of the kernel's __cluster_dims__ ");
      append_dim3(why, dim3(static_cast<unsigned>(facts.required_cluster[0]),
                            static_cast<unsigned>(facts.required_cluster[1]),
                            static_cast<unsigned>(facts.required_cluster[2])));
      why.append("; a kernel compiled with a cluster shape runs only on a grid of whole clusters");
      break;
    case launch_refusal::cluster_not_portable:
      why.append_parts("a cluster of ", config.cluster.x * config.cluster.y * config.cluster.z,
                       " blocks is larger than the portable 8; set cudaFuncAttributeNonPortableClusterSizeAllowed on "
                       "the kernel first");
      break;
    case launch_refusal::cluster_too_large:
      why.append_parts("a cluster of ", config.cluster.x * config.cluster.y * config.cluster.z, " blocks ");
      append_dim3(why, config.cluster);
      why.append(" does not fit: with ");
      append_dim3(why, config.block);
      why.append_parts(" threads and ", config.shared_bytes, " bytes of dynamic shared memory per block, device ",
                       facts.device, " allows at most ", facts.max_cluster_blocks,
                       " blocks per cluster for this kernel");
      break;
    case launch_refusal::none: break;
  }
  throw invalid_argument(mode == launch_mode::dependent ? "launch_dependent at " : "launch at ", config.where, ": ",
                         why);
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void check_launch_attributes(void const* kernel, launch_config const& config,
                                                                      launch_mode mode)
{
  if (launch_refusal const refusal = shape_refusal(config); refusal != launch_refusal::none) {
    refuse_launch(refusal, kernel_facts{}, config, mode);
  }
  if (device_refusal(facts_of(kernel, config, false), config, mode) == launch_refusal::none) [[likely]] {
    return;
  }
  // Before refusing, read again: the kernel's attributes may have changed since they were read.
  kernel_facts const& fresh = facts_of(kernel, config, true);
  if (launch_refusal const refusal = device_refusal(fresh, config, mode); refusal != launch_refusal::none) {
    refuse_launch(refusal, fresh, config, mode);
  }
}

[[gnu::noinline]] UMSYNC_DETAIL_COMPILED void check_compiled_cluster(void const* kernel, launch_config const& config)
{
  cudaFuncAttributes attributes{};
  if (cudaFuncGetAttributes(&attributes, kernel) != cudaSuccess) {
    static_cast<void>(cudaGetLastError());  // the query's error is not the caller's
    return;                                 // the launch's own error says what went wrong
  }
  kernel_facts facts;
  facts.kernel = kernel;
  facts.required_cluster[0] = attributes.requiredClusterWidth;
  facts.required_cluster[1] = attributes.requiredClusterHeight;
  facts.required_cluster[2] = attributes.requiredClusterDepth;
  if (launch_refusal const refusal = compiled_cluster_refusal(facts.required_cluster, config);
      refusal != launch_refusal::none) {
    refuse_launch(refusal, facts, config, launch_mode::plain);
  }
}

#endif  // UMSYNC_DETAIL_COMPILED_BODIES

}  // namespace detail
UMSYNC_NAMESPACE_END
