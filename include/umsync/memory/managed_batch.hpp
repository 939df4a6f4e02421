// umsync/memory/managed_batch.hpp: one stream-ordered call that prefetches or discards many
// managed ranges (CUDA 13's cudaMemPrefetchBatchAsync, cudaMemDiscardBatchAsync,
// cudaMemDiscardAndPrefetchBatchAsync).
//
//   umsync::managed_batch batch;
//   batch.add(weights, umsync::managed_location::device(0)).add(grads, umsync::managed_location::device(0));
//   batch.prefetch(s);               // one call instead of one per buffer
//   batch.discard_and_prefetch(s);   // contents not needed: no copy, only placement
//
// The batch calls need concurrent managed access on every device and refuse the legacy
// stream; both are checked first and named in the error rather than left to the runtime.
#pragma once

#include <umsync/capture/capture_status.hpp>
#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/heap_array.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_span.hpp>

#include <cstddef>
#include <source_location>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// True when every device has concurrent managed access, which the batch calls require.
[[nodiscard]] inline bool batch_managed_calls_supported(std::source_location where = std::source_location::current())
{
  device_probe const devices = probe_devices(where);
  if (!devices.usable()) {
    return false;
  }
  for (int device = 0; device < devices.count; ++device) {
    if (!capabilities(device, where).concurrent_managed_access) {
      return false;
    }
  }
  return true;
}

class managed_batch {
 public:
  struct entry {
    void* memory = nullptr;
    std::size_t bytes = 0;
    managed_location to = managed_location::host();
  };

  /// Adds all of `memory`, managed memory (memory_range.hpp), to be placed at `to` by prefetch
  /// (discard ignores `to`). Empty ranges are left out: the runtime rejects zero sizes.
  template <class Memory>
  managed_batch& add(Memory const& memory, managed_location to)
  {
    detail::require_managed<Memory>();
    if constexpr (detail::managed_memory<Memory>) {
      auto const span = memory_of(memory);
      if (!span.empty()) {
        using element = std::remove_const_t<typename decltype(span)::element_type>;
        entries_.push_back(entry{const_cast<element*>(span.data()), span.size_bytes(), to});
      }
    }
    return *this;
  }

  [[nodiscard]] std::size_t size() const noexcept { return entries_.size(); }
  [[nodiscard]] bool empty() const noexcept { return entries_.empty(); }
  /// The ranges added, in order, as an array (detail/heap_array.hpp: size(), operator[],
  /// begin() and end() as pointers).
  [[nodiscard]] detail::heap_array<entry> const& entries() const noexcept { return entries_; }
  void clear() noexcept { entries_.clear(); }

  /// Migrates every range to its location, in order on `stream`: one cudaMemPrefetchBatchAsync,
  /// or cudaMemPrefetchAsync when the batch holds one range.
  template <stream_handle Stream>
  void prefetch(Stream const& stream, std::source_location where = std::source_location::current()) const
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    if (empty()) {
      return;
    }
    require_batch_calls(stream.get(), "cudaMemPrefetchBatchAsync", where);
    if (size() == 1) {
      // The same migration, and the single call is the cheaper one for one range
      // (docs/benchmarks.md, family A).
      entry const& only = entries_[0];
      check(cudaMemPrefetchAsync(only.memory, only.bytes, only.to.get(), 0, stream.get()), "cudaMemPrefetchAsync",
            where);
      return;
    }
    call_with_locations(stream.get(), false, where);
  }

  /// Tells the driver the ranges' contents are no longer needed: they are not migrated, and
  /// reading them before a write or prefetch gives indeterminate values.
  template <stream_handle Stream>
  void discard(Stream const& stream, std::source_location where = std::source_location::current()) const
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    if (empty()) {
      return;
    }
    require_batch_calls(stream.get(), "cudaMemDiscardBatchAsync", where);
    detail::heap_array<void*> pointers;
    detail::heap_array<std::size_t> sizes;
    for (entry const& e : entries_) {
      pointers.push_back(e.memory);
      sizes.push_back(e.bytes);
    }
    check(cudaMemDiscardBatchAsync(pointers.data(), sizes.data(), pointers.size(), 0, stream.get()),
          "cudaMemDiscardBatchAsync", where);
  }

  /// discard, then place each range at its location without copying the old contents.
  template <stream_handle Stream>
  void discard_and_prefetch(Stream const& stream, std::source_location where = std::source_location::current()) const
  {
    forbid_in_capture<capture_unsafe::prefetch, Stream>();
    if (empty()) {
      return;
    }
    require_batch_calls(stream.get(), "cudaMemDiscardAndPrefetchBatchAsync", where);
    call_with_locations(stream.get(), true, where);
  }

 private:
  static void require_batch_calls(cudaStream_t stream, char const* call, std::source_location const& where)
  {
    if (!batch_managed_calls_supported(where)) {
      throw managed_memory_unsupported(
          detail::compose<detail::message_capacity>(call, " (needs concurrent managed access on every device)"),
          current_device(where));
    }
    if (stream == nullptr || stream == cudaStreamLegacy) {
      throw usage_error(call, " on the legacy default stream, which the runtime refuses; use a umsync::stream");
    }
    check_not_capturing(stream, call, where);
  }

  /// The batch calls take locations as runs: prefetchLocs[k] applies from prefetchLocIdxs[k]
  /// up to the next run's start. Grouping the entries by location, in the order each location
  /// first appears, makes one run per distinct location.
  void call_with_locations(cudaStream_t stream, bool discard_first, std::source_location const& where) const
  {
    detail::heap_array<entry> sorted;
    sorted.reserve(entries_.size());
    for (std::size_t first = 0; first < entries_.size(); ++first) {
      bool seen = false;
      for (std::size_t earlier = 0; earlier < first; ++earlier) {
        seen = seen || entries_[earlier].to == entries_[first].to;
      }
      if (!seen) {
        for (std::size_t i = first; i < entries_.size(); ++i) {
          if (entries_[i].to == entries_[first].to) {
            sorted.push_back(entries_[i]);
          }
        }
      }
    }
    detail::heap_array<void*> pointers;
    detail::heap_array<std::size_t> sizes;
    detail::heap_array<cudaMemLocation> locations;
    detail::heap_array<std::size_t> run_starts;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
      if (i == 0 || !(sorted[i].to == sorted[i - 1].to)) {
        locations.push_back(sorted[i].to.get());
        run_starts.push_back(i);
      }
      pointers.push_back(sorted[i].memory);
      sizes.push_back(sorted[i].bytes);
    }
    if (discard_first) {
      check(cudaMemDiscardAndPrefetchBatchAsync(pointers.data(), sizes.data(), pointers.size(), locations.data(),
                                                run_starts.data(), locations.size(), 0, stream),
            "cudaMemDiscardAndPrefetchBatchAsync", where);
    } else {
      check(cudaMemPrefetchBatchAsync(pointers.data(), sizes.data(), pointers.size(), locations.data(),
                                      run_starts.data(), locations.size(), 0, stream),
            "cudaMemPrefetchBatchAsync", where);
    }
  }

  detail::heap_array<entry> entries_;
};

UMSYNC_NAMESPACE_END
