// umsync/detail/debug/ordering_checker.hpp: the UMSYNC_DEBUG run-time ordering checker.
//
// Types stop a buffer bound to one stream tag from reaching a stream with another tag. They
// cannot see two different streams that share a tag, untagged memory shared between
// streams, or raw handles. This checker can: it follows the model of PyTorch's stream
// sanitizer (a vector clock per stream, a snapshot per event, the uses of each byte range
// since its last write) and throws ordering_error when an access is not ordered after the
// previous conflicting one on an overlapping range. Host synchronization (stream or event
// synchronize, a query that found the work done, a whole-device synchronize) orders everything
// the host issues afterwards, on every stream, streams first seen later included. The host is
// a party of its own (the null key): its writes of pinned memory (a staging slot) are checked
// against the streams' reads. The legacy default stream's implicit synchronization with
// blocking streams is modelled for the streams the checker is told are blocking.
//
// What the host does with the raw runtime (cudaDeviceSynchronize, cudaStreamSynchronize) the
// checker cannot see: the runtime has no callback for it. Such a synchronization must go through
// umsync (umsync::synchronize_device(), a stream's or event's synchronize()) to order anything.
//
// umsync's buffers register the address range of each allocation they make (and remove it when
// they free it). An access anywhere inside a registered allocation is kept with that
// allocation, by byte range: sub-ranges of one buffer (subspans) are related when they overlap
// and independent when they do not, and a raw pointer into the buffer (taken with data() and
// passed to umsync::launch) is recognised and checked as the rest of the allocation from that
// pointer on.
//
// Only debug builds call it, through the hooks in checker_hooks.hpp; release builds include
// neither this header nor anything it needs (<map>, <mutex>).
// Limits: memory umsync did not allocate (adopted spans, a user's own types) is known by the
// start address of each span, so two spans of it that start at different addresses are not
// related, and a raw pointer to it is not checked; one handle value stands for the legacy
// (and the per-thread) default stream of every device, so with several devices the legacy
// stream's implicit synchronization is a promise the checker takes on trust.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/access.hpp>
#include <umsync/error.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

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

  /// The extent of an access whose size is not known (a raw pointer): the rest of the tracked
  /// allocation from the address on.
  static constexpr std::size_t rest_of_allocation = static_cast<std::size_t>(-1);

  /// umsync allocated `bytes` at `base`: later accesses inside are kept with this allocation.
  /// Whatever was known of addresses inside is forgotten: they were other memory before.
  void on_allocate(void const* base, std::size_t bytes)
  {
    if (base == nullptr || bytes == 0) {
      return;
    }
    std::lock_guard lock(mutex_);
    std::uintptr_t const begin = address_of(base);
    std::uintptr_t const end = end_of(begin, bytes);
    auto first = allocations_.lower_bound(begin);
    if (first != allocations_.begin() && std::prev(first)->second > begin) {
      --first;  // an older allocation that reaches into this one: stale
    }
    for (auto stale = first; stale != allocations_.end() && stale->first < end;) {
      forget_memory(stale->first, stale->second);
      stale = allocations_.erase(stale);
    }
    forget_memory(begin, end);
    allocations_.emplace(begin, end);
  }

  /// The allocation at `base` is freed: it and every use recorded in it are forgotten.
  void on_deallocate(void const* base)
  {
    if (base == nullptr) {
      return;
    }
    std::lock_guard lock(mutex_);
    std::uintptr_t const begin = address_of(base);
    auto const found = allocations_.find(begin);
    if (found != allocations_.end()) {
      forget_memory(begin, found->second);
      allocations_.erase(found);
    } else {
      memory_.erase(begin);
    }
  }

  /// True when `address` lies inside an allocation umsync registered.
  [[nodiscard]] bool tracks(void const* address)
  {
    std::lock_guard lock(mutex_);
    return address != nullptr && allocation_holding(address_of(address)) != allocations_.end();
  }

  /// `stream` (or `host`: the host itself) uses the `bytes` at `address` (read, write, or free). Throws ordering_error when
  /// the use is not ordered after the last conflicting use of an overlapping range on another
  /// stream. Inside a tracked allocation the use is kept with the allocation; elsewhere with
  /// `address`.
  void on_access(void const* address, std::size_t bytes, void const* stream, access kind,
                 std::source_location where = std::source_location::current())
  {
    if (address == nullptr || bytes == 0) {
      return;
    }
    std::lock_guard lock(mutex_);
    std::uintptr_t const begin = address_of(address);
    auto const allocation = allocation_holding(begin);
    if (allocation == allocations_.end()) {
      access_locked(begin, begin, bytes == rest_of_allocation ? begin + 1 : end_of(begin, bytes), stream, kind, where);
    } else {
      std::uintptr_t const end = bytes == rest_of_allocation ? allocation->second : end_of(begin, bytes);
      access_locked(allocation->first, begin, end, stream, kind, where);
    }
  }

  /// The same, for memory known by its address alone (the extent of a tracked allocation from
  /// `key` on; one byte elsewhere).
  void on_access(void const* key, void const* stream, access kind,
                 std::source_location where = std::source_location::current())
  {
    on_access(key, rest_of_allocation, stream, kind, where);
  }

  /// A raw pointer that `stream`'s work receives: checked as the rest of its allocation from
  /// `address` on when it points into a tracked allocation. Anything else passes unchecked:
  /// returns false.
  bool on_pointer_access(void const* address, void const* stream, access kind,
                         std::source_location where = std::source_location::current())
  {
    if (address == nullptr) {
      return false;
    }
    std::lock_guard lock(mutex_);
    std::uintptr_t const begin = address_of(address);
    auto const allocation = allocation_holding(begin);
    if (allocation == allocations_.end()) {
      return false;
    }
    access_locked(allocation->first, begin, allocation->second, stream, kind, where);
    return true;
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

  /// The host waited for a whole device (cudaDeviceSynchronize through umsync): every stream
  /// `on_device(stream)` says is that device's has completed everything enqueued so far, and so
  /// has the work of streams destroyed since the last such wait when `retired_on_device` (their
  /// device is no longer known: true only where the process has one device). What the host
  /// issues afterwards, on any stream, streams first seen later included, is ordered after it.
  template <class OnDevice>
  void on_device_synchronized(OnDevice&& on_device, bool retired_on_device)
  {
    std::lock_guard lock(mutex_);
    clock joined;
    for (auto const& [stream, c] : streams_) {
      if (on_device(stream)) {
        merge(joined, c);
      }
    }
    if (retired_on_device) {
      merge(joined, retired_);
      retired_.clear();
    }
    merge(host_, joined);
  }

  /// `stream` synchronizes with the legacy default stream (a blocking stream: cudaStreamDefault).
  void on_blocking_stream(void const* stream)
  {
    std::lock_guard lock(mutex_);
    blocking_.push_back(stream);
  }

  /// A stream or event handle is destroyed; a new one may reuse its address.
  void forget_stream(void const* stream)
  {
    std::lock_guard lock(mutex_);
    // cudaStreamDestroy does not wait: nothing becomes ordered here. Its work still runs, and
    // a later whole-device synchronization waits for it: kept for that.
    auto const found = streams_.find(stream);
    if (found != streams_.end()) {
      merge(retired_, found->second);
      streams_.erase(found);
    }
    launches_.erase(stream);
    std::erase(blocking_, stream);
  }
  void forget_event(void const* event)
  {
    std::lock_guard lock(mutex_);
    events_.erase(event);
  }

  /// A kernel launch on `stream` begins (launch.hpp): the accesses until on_launch_end(stream)
  /// are its arguments'. A programmatic dependent launch (`dependent`) may run alongside the
  /// launches on the stream since the last work that a later kernel waits for in full: a plain
  /// launch, or any other stream operation (a copy, a fill). Those define the window an
  /// independent<T> claim is checked against (check_independent_claim).
  void on_launch(void const* stream, bool dependent)
  {
    std::lock_guard lock(mutex_);
    std::uint64_t const current = component(stream_clock(stream), stream);
    launch_window& window = launches_[stream];
    if (!dependent) {
      window.begin = current;  // this launch, and dependents after it, may overlap each other
    }
    window.launch_begin = current;
    window.in_launch = true;
    window.dependent = dependent;
  }
  void on_launch_end(void const* stream)
  {
    std::lock_guard lock(mutex_);
    launches_[stream].in_launch = false;
  }

  /// An independent<T> parameter of the launch now beginning on `stream` takes the `bytes` at
  /// `address` (rest_of_allocation: a raw pointer) to `kind` them: the claim is that no earlier
  /// work the launch may overlap uses them in conflict. Throws usage_error, naming that use, when
  /// the launch is a dependent one and work on the same stream inside its window (after the last
  /// plain launch or other stream operation, and not yet waited for by the host) wrote them (or,
  /// for a written parameter, read them). Other streams are the ordering check's: their work is
  /// ordered before the window opened, or is reported by on_access as any unordered use is.
  void check_independent_claim(void const* address, std::size_t bytes, void const* stream, access kind,
                               std::source_location const& where)
  {
    if (address == nullptr || bytes == 0) {
      return;
    }
    std::lock_guard lock(mutex_);
    auto const window = launches_.find(stream);
    if (window == launches_.end() || !window->second.in_launch || !window->second.dependent) {
      return;
    }
    std::uintptr_t const begin = address_of(address);
    auto const allocation = allocation_holding(begin);
    std::uintptr_t key = begin;
    std::uintptr_t end = bytes == rest_of_allocation ? begin + 1 : end_of(begin, bytes);
    if (allocation != allocations_.end()) {
      key = allocation->first;
      end = bytes == rest_of_allocation ? allocation->second : end_of(begin, bytes);
    }
    auto const found = memory_.find(key);
    if (found == memory_.end()) {
      return;
    }
    std::uint64_t const after = std::max(window->second.begin, component(host_, stream));
    for (use const& previous : found->second) {
      if (previous.stream == stream && previous.epoch > after && previous.epoch <= window->second.launch_begin &&
          previous.begin < end && begin < previous.end && (previous.kind != access::read || kind != access::read)) {
        char const* const names[] = {"reads", "writes", "frees"};
        throw usage_error("launch_dependent at ", where, ": an independent<T> parameter ",
                          kind == access::read ? "reads" : "writes",
                          " memory that earlier work on the stream, which this dependent launch may overlap, ",
                          names[static_cast<int>(previous.kind)], " (at ", previous.where,
                          "); declare the parameter pending<T> and open it after wait_for_prerequisite_grids(), or "
                          "order the launch after that work (a host wait, or a plain launch between)");
      }
    }
  }

  /// Drops all state (tests).
  void reset()
  {
    std::lock_guard lock(mutex_);
    launches_.clear();
    streams_.clear();
    events_.clear();
    memory_.clear();
    allocations_.clear();
    read_only_.clear();
    host_.clear();
    retired_.clear();
    blocking_.clear();
  }

  /// The key under which the host's own accesses are kept (on_access with this stream).
  static constexpr void const* host = nullptr;

  /// The `bytes` at `base` may be read and not written until on_read_only_end(base): a write
  /// or free that overlaps them throws usage_error, starting with `why` (who declared them
  /// read-only: a phase that only reads a bound buffer).
  void on_read_only_begin(void const* base, std::size_t bytes, text_view why)
  {
    if (base == nullptr || bytes == 0) {
      return;
    }
    std::lock_guard lock(mutex_);
    read_only_[address_of(base)] = read_only_range{end_of(address_of(base), bytes),
                                                   std::string(why.data(), why.size())};
  }
  void on_read_only_end(void const* base)
  {
    std::lock_guard lock(mutex_);
    read_only_.erase(address_of(base));
  }

 private:
  using clock = std::map<void const*, std::uint64_t>;
  /// One access of the bytes [begin, end).
  struct use {
    void const* stream = nullptr;
    std::uint64_t epoch = 0;
    access kind = access::read;
    std::source_location where;
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
  };
  /// The uses of one allocation (or of one untracked address) that a later access may still
  /// conflict with.
  using memory_uses = std::vector<use>;

  static std::uintptr_t address_of(void const* address) { return reinterpret_cast<std::uintptr_t>(address); }
  /// `begin + bytes`, saturated.
  static std::uintptr_t end_of(std::uintptr_t begin, std::size_t bytes)
  {
    std::uintptr_t const most = static_cast<std::uintptr_t>(-1);
    return bytes > most - begin ? most : begin + bytes;
  }

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
  /// is ordered after everything the host synchronized with (and after the host's own
  /// accesses). The host's clock is host_ itself. Work on the legacy default stream waits for
  /// every blocking stream's earlier work, and a blocking stream's work for the legacy stream's.
  clock& stream_clock(void const* stream)
  {
    if (stream == host) {
      return host_;
    }
    clock& c = streams_[stream];
    merge(c, host_);
    void const* const legacy = static_cast<void const*>(cudaStreamLegacy);
    if (stream == legacy) {
      for (void const* blocking : blocking_) {
        auto const found = streams_.find(blocking);
        if (found != streams_.end()) {
          merge(c, found->second);
        }
      }
    } else if (is_blocking(stream)) {
      auto const found = streams_.find(legacy);
      if (found != streams_.end()) {
        merge(c, found->second);
      }
    }
    return c;
  }

  /// The per-thread default stream synchronizes with the legacy stream as a blocking stream does.
  bool is_blocking(void const* stream) const
  {
    return stream == static_cast<void const*>(cudaStreamPerThread) ||
           std::find(blocking_.begin(), blocking_.end(), stream) != blocking_.end();
  }

  /// The registered allocation (base -> end) that holds `address`, or allocations_.end().
  std::map<std::uintptr_t, std::uintptr_t>::const_iterator allocation_holding(std::uintptr_t address) const
  {
    auto found = allocations_.upper_bound(address);
    if (found == allocations_.begin()) {
      return allocations_.end();
    }
    --found;
    return address < found->second ? found : allocations_.end();
  }

  /// Throws usage_error when [begin, end) overlaps memory declared read-only. Called with the
  /// mutex held.
  void check_writable(std::uintptr_t begin, std::uintptr_t end, access kind, std::source_location const& where) const
  {
    for (auto const& [base, range] : read_only_) {
      if (base < end && begin < range.end) {
        throw usage_error(range.why, ", and a ", kind == access::free ? "free" : "write", " reaches it at ", where,
                          " (not through the phase's views: the bound buffer itself, or a pointer into it); write "
                          "it in a phase that declares device_read_write for it, or after this phase's scope ends");
      }
    }
  }

  /// Forgets the uses recorded for memory in [begin, end).
  void forget_memory(std::uintptr_t begin, std::uintptr_t end)
  {
    memory_.erase(memory_.lower_bound(begin), memory_.lower_bound(end));
  }

  /// `stream` uses [begin, end) of the memory kept under `key`. Called with the mutex held.
  void access_locked(std::uintptr_t key, std::uintptr_t begin, std::uintptr_t end, void const* stream, access kind,
                     std::source_location const& where)
  {
    if (kind != access::read) {
      check_writable(begin, end, kind, where);
    }
    clock& now = stream_clock(stream);
    use const attempt{stream, 0, kind, where, begin, end};
    auto const found = memory_.find(key);
    if (found != memory_.end()) {
      auto const unordered = [&](use const& previous) {
        return previous.stream != stream && previous.begin < end && begin < previous.end &&
               (previous.kind != access::read || kind != access::read) &&
               component(now, previous.stream) < previous.epoch;
      };
      // A conflicting write is reported before a conflicting read, as the one to order after.
      for (bool const writes : {true, false}) {
        for (use const& previous : found->second) {
          if ((previous.kind != access::read) == writes && unordered(previous)) {
            throw ordering_error(site_of(previous), site_of(attempt));
          }
        }
      }
    }
    std::uint64_t const epoch = ++now[stream];
    if (stream != host) {
      // Work other than a launch's arguments (a copy, a fill) completes before any later kernel
      // on its stream starts, programmatic or not: a dependent launch's window opens after it.
      auto const window = launches_.find(stream);
      if (window == launches_.end() || !window->second.in_launch) {
        launches_[stream].begin = epoch;
      }
    }
    if (kind == access::free) {
      // The memory is gone; its address may come back from the pool as new memory.
      if (found != memory_.end()) {
        std::erase_if(found->second, [&](use const& previous) { return previous.begin < end && begin < previous.end; });
        if (found->second.empty()) {
          memory_.erase(found);
        }
      }
      return;
    }
    memory_uses& uses = found != memory_.end() ? found->second : memory_[key];
    // Uses this one makes redundant: a later access that would conflict with one of them
    // overlaps this one as well, and being ordered after this one it is ordered after them
    // (this one was ordered after them, or is later on the same stream).
    std::erase_if(uses, [&](use const& previous) {
      bool const covered = begin <= previous.begin && previous.end <= end;
      return covered && (kind != access::read || (previous.kind == access::read && previous.stream == stream));
    });
    uses.push_back(use{stream, epoch, kind, where, begin, end});
  }

  /// Per stream: the epochs a dependent launch may overlap (on_launch, check_independent_claim).
  struct launch_window {
    std::uint64_t begin = 0;         ///< uses after this epoch may still run when a dependent starts
    std::uint64_t launch_begin = 0;  ///< the epoch before the current launch's own argument accesses
    bool in_launch = false;
    bool dependent = false;
  };

  std::mutex mutex_;
  std::map<void const*, launch_window> launches_;
  std::map<void const*, clock> streams_;
  std::map<void const*, clock> events_;
  /// Keyed by the allocation's base, or by the address of memory no allocation holds.
  std::map<std::uintptr_t, memory_uses> memory_;
  /// The allocations umsync registered: base -> end.
  std::map<std::uintptr_t, std::uintptr_t> allocations_;
  struct read_only_range {
    std::uintptr_t end = 0;
    std::string why;
  };
  /// Memory that may be read, not written, for now: base -> extent and who said so.
  std::map<std::uintptr_t, read_only_range> read_only_;
  clock host_;
  /// What streams destroyed since the last whole-device synchronization had enqueued.
  clock retired_;
  /// The streams known to synchronize with the legacy default stream (few: a vector).
  std::vector<void const*> blocking_;
};

}  // namespace detail::debug
UMSYNC_NAMESPACE_END
