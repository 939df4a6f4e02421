// umsync/memory/memory_pool.hpp: stream-ordered memory pools.
//
// `memory_pool` owns a pool (cudaMemPoolCreate) whose release threshold keeps everything by
// default: the device default pool's threshold is 0 (measured on the H200 driver), so it
// hands memory back to the driver at every synchronization and the next allocation pays a
// full cudaMalloc-like cost again. `memory_pool_ref` is a non-owning handle, e.g. of a
// device's default pool.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <source_location>
#include <string>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

class memory_pool_ref {
 public:
  /// Keeps all memory the pool has reserved until trimmed or destroyed.
  static constexpr std::uint64_t keep_everything = std::numeric_limits<std::uint64_t>::max();

  constexpr explicit memory_pool_ref(cudaMemPool_t handle) noexcept : handle_(handle) {}

  /// The device's default pool (what cudaMallocAsync uses). Its release threshold is left as
  /// the driver set it; call set_release_threshold(keep_everything) to keep memory.
  [[nodiscard]] static memory_pool_ref device_default(int device,
                                                      std::source_location where = std::source_location::current())
  {
    cudaMemPool_t pool = nullptr;
    check(cudaDeviceGetDefaultMemPool(&pool, device), "cudaDeviceGetDefaultMemPool", where);
    return memory_pool_ref(pool);
  }

  [[nodiscard]] constexpr cudaMemPool_t get() const noexcept { return handle_; }

  [[nodiscard]] std::uint64_t release_threshold() const
  {
    return attribute(cudaMemPoolAttrReleaseThreshold, "release threshold");
  }
  void set_release_threshold(std::uint64_t bytes, std::source_location where = std::source_location::current()) const
  {
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrReleaseThreshold, &bytes),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReleaseThreshold)", where);
  }

  /// Bytes the pool holds from the driver now, and at most since the last reset.
  [[nodiscard]] std::uint64_t reserved_bytes() const
  {
    return attribute(cudaMemPoolAttrReservedMemCurrent, "reserved");
  }
  [[nodiscard]] std::uint64_t reserved_high_water() const
  {
    return attribute(cudaMemPoolAttrReservedMemHigh, "reserved high water");
  }
  /// Bytes handed out to allocations now, and at most since the last reset.
  [[nodiscard]] std::uint64_t used_bytes() const { return attribute(cudaMemPoolAttrUsedMemCurrent, "used"); }
  [[nodiscard]] std::uint64_t used_high_water() const
  {
    return attribute(cudaMemPoolAttrUsedMemHigh, "used high water");
  }
  void reset_high_water(std::source_location where = std::source_location::current()) const
  {
    std::uint64_t zero = 0;
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrReservedMemHigh, &zero),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrReservedMemHigh)", where);
    check(cudaMemPoolSetAttribute(handle_, cudaMemPoolAttrUsedMemHigh, &zero),
          "cudaMemPoolSetAttribute(cudaMemPoolAttrUsedMemHigh)", where);
  }

  /// Which freed blocks the pool may hand out again, and when (see cudaMemPoolAttr). CUDA's
  /// default allows all three. allow_internal_dependencies lets an allocation on one stream wait
  /// for a free on another to reuse its block: correct, but it can silently serialize a
  /// loader -> compute pipeline; turn it off where streams must run independently.
  struct reuse_policy {
    bool follow_event_dependencies = true;    ///< reuse across streams ordered by events
    bool allow_opportunistic = true;          ///< reuse when the free has completed, unordered
    bool allow_internal_dependencies = true;  ///< the pool may insert waits to reuse
  };
  [[nodiscard]] reuse_policy reuse() const
  {
    return {int_attribute(cudaMemPoolReuseFollowEventDependencies) != 0,
            int_attribute(cudaMemPoolReuseAllowOpportunistic) != 0,
            int_attribute(cudaMemPoolReuseAllowInternalDependencies) != 0};
  }
  void set_reuse(reuse_policy policy, std::source_location where = std::source_location::current()) const
  {
    set_int_attribute(cudaMemPoolReuseFollowEventDependencies, policy.follow_event_dependencies, where);
    set_int_attribute(cudaMemPoolReuseAllowOpportunistic, policy.allow_opportunistic, where);
    set_int_attribute(cudaMemPoolReuseAllowInternalDependencies, policy.allow_internal_dependencies, where);
  }

  /// Returns reserved memory to the driver until at most `keep_bytes` remain reserved
  /// (memory in use is never released).
  void trim_to(std::size_t keep_bytes, std::source_location where = std::source_location::current()) const
  {
    check(cudaMemPoolTrimTo(handle_, keep_bytes), "cudaMemPoolTrimTo", where);
  }

  /// Lets device `peer` read and write this pool's allocations (or takes that away).
  void set_peer_access(int peer, bool read_write, std::source_location where = std::source_location::current()) const
  {
    cudaMemAccessDesc desc{};
    desc.location = {cudaMemLocationTypeDevice, peer};
    desc.flags = read_write ? cudaMemAccessFlagsProtReadWrite : cudaMemAccessFlagsProtNone;
    check(cudaMemPoolSetAccess(handle_, &desc, 1), "cudaMemPoolSetAccess", where);
  }

  friend constexpr bool operator==(memory_pool_ref, memory_pool_ref) noexcept = default;

 private:
  std::uint64_t attribute(cudaMemPoolAttr attr, char const* name,
                          std::source_location where = std::source_location::current()) const
  {
    std::uint64_t value = 0;
    check(cudaMemPoolGetAttribute(handle_, attr, &value), std::string("cudaMemPoolGetAttribute(") + name + ")", where);
    return value;
  }
  int int_attribute(cudaMemPoolAttr attr, std::source_location where = std::source_location::current()) const
  {
    int value = 0;
    check(cudaMemPoolGetAttribute(handle_, attr, &value), "cudaMemPoolGetAttribute(reuse policy)", where);
    return value;
  }
  void set_int_attribute(cudaMemPoolAttr attr, bool on, std::source_location where) const
  {
    int value = on ? 1 : 0;
    check(cudaMemPoolSetAttribute(handle_, attr, &value), "cudaMemPoolSetAttribute(reuse policy)", where);
  }

  cudaMemPool_t handle_;
};

struct memory_pool_options {
  int device = 0;  ///< where the memory lives
  std::uint64_t release_threshold = memory_pool_ref::keep_everything;
  std::size_t max_bytes = 0;  ///< 0: no limit but the device's
  /// Allocations may be shared with other processes (POSIX file descriptor handles; see
  /// umsync/memory/pool_ipc.hpp).
  bool exportable = false;
  /// Reuse rules, set at creation (CUDA's default: everything allowed).
  memory_pool_ref::reuse_policy reuse = {};
};

namespace detail {

/// Destroys an owned pool; `imported` pools own no memory of their own and refuse trimming.
struct destroy_pool {
  bool imported = false;
  void operator()(cudaMemPool_t handle) const noexcept
  {
    // Give unused reserved memory back now; cudaMemPoolDestroy alone may defer the release.
    if (!imported) {
      report_in_destructor(cudaMemPoolTrimTo(handle, 0), "cudaMemPoolTrimTo");
    }
    report_in_destructor(cudaMemPoolDestroy(handle), "cudaMemPoolDestroy");
  }
};

}  // namespace detail

/// An owning pool on one device. Move-only; destroying it while allocations from it are
/// still alive is a bug the driver defers (it frees the pool when they are freed).
class memory_pool {
 public:
  explicit memory_pool(memory_pool_options options = {}, std::source_location where = std::source_location::current())
  {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = options.exportable ? cudaMemHandleTypePosixFileDescriptor : cudaMemHandleTypeNone;
    props.location = {cudaMemLocationTypeDevice, options.device};
    props.maxSize = options.max_bytes;
    cudaMemPool_t handle = nullptr;
    check(cudaMemPoolCreate(&handle, &props), "cudaMemPoolCreate", where);
    handle_ = decltype(handle_)(handle);  // owned from here: a failure below destroys it
    memory_pool_ref(handle).set_release_threshold(options.release_threshold, where);
    memory_pool_ref(handle).set_reuse(options.reuse, where);
  }
  /// Takes ownership of `handle`, a pool imported from another process (pool_ipc.hpp).
  /// Imported pools own no memory of their own and refuse trimming, so none is attempted.
  [[nodiscard]] static memory_pool adopt_imported(cudaMemPool_t handle) noexcept { return memory_pool(handle); }

  /// A handle for attribute access and allocation; throws usage_error when moved from.
  [[nodiscard]] memory_pool_ref ref() const { return memory_pool_ref(handle_.get_or_throw("umsync::memory_pool")); }
  operator memory_pool_ref() const { return ref(); }  // NOLINT: a pool is usable where a ref is
  [[nodiscard]] cudaMemPool_t get() const { return ref().get(); }

 private:
  explicit memory_pool(cudaMemPool_t handle) noexcept : handle_(handle, detail::destroy_pool{.imported = true}) {}

  detail::unique_handle<cudaMemPool_t, detail::destroy_pool> handle_;
};

UMSYNC_NAMESPACE_END
