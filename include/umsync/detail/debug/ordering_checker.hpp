// umsync/detail/debug/ordering_checker.hpp: the UMSYNC_DEBUG run-time ordering checker.
//
// Types stop a buffer bound to one stream tag from reaching a stream with another tag. They
// cannot see two different streams that share a tag, untagged memory shared between
// streams, or raw handles. This checker can: it follows the model of PyTorch's stream
// sanitizer (a vector clock per stream, a snapshot per event, the last writer and the
// readers since per buffer) and throws ordering_error when an access is not ordered after
// the previous conflicting one. Host synchronization (stream or event synchronize) orders
// everything the host issues afterwards.
//
// Only debug builds call it, through the hooks in checker_hooks.hpp; release builds include
// neither this header nor anything it needs (<map>, <mutex>).
// Limits: memory is keyed by its start address, so overlapping sub-ranges of one allocation
// are not related; the legacy default stream's implicit synchronization is not modelled.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/access.hpp>
#include <umsync/error.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace detail::debug {

class ordering_checker {
 public:
  /// The process-wide checker.
  static ordering_checker& instance()
  {
    static ordering_checker checker;
    return checker;
  }

  /// `stream` uses the memory at `key` (read, write, or free). Throws ordering_error when the
  /// use is not ordered after the last conflicting use on another stream.
  void on_access(void const* key, void const* stream, access kind,
                 std::source_location where = std::source_location::current())
  {
    if (key == nullptr) {
      return;
    }
    std::lock_guard lock(mutex_);
    clock& now = stream_clock(stream);
    memory_state& memory = memory_[key];
    auto const unordered = [&](use const& previous) {
      return previous.stream != stream && component(now, previous.stream) < previous.epoch;
    };
    if (memory.last_write && unordered(*memory.last_write)) {
      throw ordering_error(site_of(*memory.last_write), site_of(use{stream, 0, kind, where}));
    }
    if (kind != access::read) {
      for (auto const& [reader, read] : memory.reads) {
        if (unordered(read)) {
          throw ordering_error(site_of(read), site_of(use{stream, 0, kind, where}));
        }
      }
    }
    std::uint64_t const epoch = ++now[stream];
    use const current{stream, epoch, kind, where};
    if (kind == access::read) {
      memory.reads[stream] = current;
    } else {
      memory.last_write = current;
      memory.reads.clear();
    }
    if (kind == access::free) {
      memory_.erase(key);  // the address may come back from the pool as new memory
    }
  }

  /// An event is recorded on `stream`: it captures the stream's clock.
  void on_record(void const* event, void const* stream)
  {
    std::lock_guard lock(mutex_);
    events_[event] = stream_clock(stream);
  }

  /// `stream` waits for `event`: everything the event captured happens before its later work.
  void on_wait(void const* stream, void const* event)
  {
    std::lock_guard lock(mutex_);
    auto const found = events_.find(event);
    if (found != events_.end()) {
      merge(stream_clock(stream), found->second);
    }
  }

  /// The host waited for `stream`: what it issues afterwards is ordered after the stream's work.
  void on_host_waited_for_stream(void const* stream)
  {
    std::lock_guard lock(mutex_);
    merge(host_, stream_clock(stream));
  }

  /// The host waited for `event`.
  void on_host_waited_for_event(void const* event)
  {
    std::lock_guard lock(mutex_);
    auto const found = events_.find(event);
    if (found != events_.end()) {
      merge(host_, found->second);
    }
  }

  /// A stream or event handle is destroyed; a new one may reuse its address.
  void forget_stream(void const* stream)
  {
    std::lock_guard lock(mutex_);
    streams_.erase(stream);  // cudaStreamDestroy does not wait: nothing becomes ordered here
  }
  void forget_event(void const* event)
  {
    std::lock_guard lock(mutex_);
    events_.erase(event);
  }

  /// Drops all state (tests).
  void reset()
  {
    std::lock_guard lock(mutex_);
    streams_.clear();
    events_.clear();
    memory_.clear();
    host_.clear();
  }

 private:
  using clock = std::map<void const*, std::uint64_t>;
  struct use {
    void const* stream = nullptr;
    std::uint64_t epoch = 0;
    access kind = access::read;
    std::source_location where;
  };
  struct memory_state {
    std::optional<use> last_write;
    std::map<void const*, use> reads;
  };

  static std::uint64_t component(clock const& c, void const* stream)
  {
    auto const found = c.find(stream);
    return found == c.end() ? 0 : found->second;
  }
  static void merge(clock& into, clock const& from)
  {
    for (auto const& [stream, value] : from) {
      std::uint64_t& slot = into[stream];
      slot = std::max(slot, value);
    }
  }
  static ordering_error::site site_of(use const& u)
  {
    char const* const names[] = {"read", "write", "free"};
    return {u.stream, names[static_cast<int>(u.kind)], u.where};
  }

  /// The stream's clock, first brought up to what the host has waited for: work issued now
  /// is ordered after everything the host synchronized with.
  clock& stream_clock(void const* stream)
  {
    clock& c = streams_[stream];
    merge(c, host_);
    return c;
  }

  std::mutex mutex_;
  std::map<void const*, clock> streams_;
  std::map<void const*, clock> events_;
  std::map<void const*, memory_state> memory_;
  clock host_;
};

}  // namespace detail::debug
UMSYNC_NAMESPACE_END
