// umsync/torch/detail/storage_registry.hpp: internal, UMSYNC_DEBUG only. The tensor storages the
// ordering checker has seen, so that memory PyTorch's allocator hands out again is told apart.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>

#include <ATen/core/Tensor.h>

#include <cstddef>

#if defined(UMSYNC_DEBUG)
#  include <map>
#  include <mutex>
#endif

UMSYNC_NAMESPACE_BEGIN
namespace detail {

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: the storages whose memory the checker has seen, by their base address. PyTorch
/// frees a storage without telling umsync, and its caching allocator hands the same address out
/// again; a new storage at a known address is told apart by identity (a weak reference keeps the
/// old StorageImpl object, not its memory). When the old storage's memory was kept alive with
/// keep_alive_on (record_stream), the allocator waited for the recorded streams before reusing
/// it: the old uses are forgotten. Otherwise they stay, and a use of the new tensor that is not
/// ordered after them is reported: it is the hazard itself.
class storage_registry {
 public:
  static storage_registry& instance()
  {
    static storage_registry registry;
    return registry;
  }

  void seen(at::Tensor const& tensor, bool kept_alive)
  {
    c10::Storage const& storage = tensor.storage();
    void const* const base = storage.data();
    if (base == nullptr) {
      return;
    }
    std::size_t const bytes = storage.nbytes();
    c10::StorageImpl const* const impl = storage.unsafeGetStorageImpl();
    std::lock_guard lock(mutex_);
    auto const found = entries_.find(base);
    if (found == entries_.end()) {
      debug::note_allocated(base, bytes);
      entries_.emplace(base, entry{storage.getWeakStorageImpl(), impl, kept_alive});
      return;
    }
    entry& known = found->second;
    if (!known.storage.expired() && known.impl == impl) {
      known.kept_alive = known.kept_alive || kept_alive;
      return;
    }
    if (known.kept_alive) {
      debug::note_allocated(base, bytes);  // forgets the old uses: the allocator waited
    }
    known = entry{storage.getWeakStorageImpl(), impl, kept_alive};
  }

  void reset()
  {
    std::lock_guard lock(mutex_);
    entries_.clear();
  }

 private:
  struct entry {
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
    c10::StorageImpl const* impl;
    bool kept_alive;
  };
  std::mutex mutex_;
  std::map<void const*, entry> entries_;
};
#endif

}  // namespace detail
UMSYNC_NAMESPACE_END
