// umsync/memory/managed_memory.hpp: the vocabulary of unified (managed) memory and what applies
// to any of it: locations, typed advice, attach flags, and advise / unadvise / prefetch over
// managed memory of any owner (a managed_buffer, a managed_span, a user's type whose
// umsync_memory says managed).
//
//   umsync::advise(w, umsync::advice::preferred_location{umsync::managed_location::device(0)});
//   umsync::prefetch(w.span(), umsync::managed_location::device(0), s);  // stream-ordered migration
//
// Advice and prefetch exist only for managed memory: umsync::advise on any other memory does not
// compile (device memory never migrates, so advice there is a bug). Only the CUDA 13 location
// API (cudaMemLocation) is used. Prefetch and advice cannot be captured into a graph: on a
// capturing stream they do not compile, on a view of one they throw capture_error. The owner,
// managed_buffer, is memory/managed_buffer.hpp.
#pragma once

#include <umsync/capture/capture_status.hpp>
#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_view.hpp>

#include <concepts>
#include <cstddef>
#include <optional>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

/// The device lacks a unified-memory feature a call needs (managed memory at all, or
/// concurrent managed access for batch prefetch and discard). A property of the machine the
/// program must check for, named with the feature and the device.
class managed_memory_unsupported : public usage_error {
 public:
  managed_memory_unsupported(detail::text_view feature, int device)
      : usage_error("device ", device, " does not support ", feature), device_(device)
  {}
  [[nodiscard]] int device() const noexcept { return device_; }

 private:
  int device_;
};

/// Where managed pages live or should go: one device, or the host.
class managed_location {
 public:
  [[nodiscard]] static constexpr managed_location device(int ordinal) noexcept { return managed_location{ordinal}; }
  [[nodiscard]] static constexpr managed_location host() noexcept { return managed_location{host_id}; }

  [[nodiscard]] constexpr bool is_host() const noexcept { return id_ == host_id; }
  /// The device ordinal; meaningless for the host.
  [[nodiscard]] constexpr int ordinal() const noexcept { return id_; }
  [[nodiscard]] constexpr cudaMemLocation get() const noexcept
  {
    return is_host() ? cudaMemLocation{cudaMemLocationTypeHost, 0} : cudaMemLocation{cudaMemLocationTypeDevice, id_};
  }
  /// "host" or "device N". A std::string: needs <string> where it is called
  /// (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] auto describe() const
  {
    return is_host() ? detail::returned_string<String>("host") : detail::returned_string<String>("device ", id_);
  }

  friend constexpr bool operator==(managed_location, managed_location) noexcept = default;

 private:
  static constexpr int host_id = -1;
  constexpr explicit managed_location(int id) noexcept : id_(id) {}
  int id_;
};

/// The advice umsync gives, one type each, carrying its set and unset codes, so an advice
/// without its location cannot be written.
namespace advice {
/// Pages are duplicated where read; a write collapses every copy (costly: never on memory a
/// kernel writes; docs/failure-modes.md, "Writes to read-mostly memory").
struct read_mostly {
  static constexpr cudaMemoryAdvise set = cudaMemAdviseSetReadMostly;
  static constexpr cudaMemoryAdvise unset = cudaMemAdviseUnsetReadMostly;
  /// The runtime ignores the location of read-mostly advice.
  [[nodiscard]] constexpr cudaMemLocation location() const noexcept { return managed_location::host().get(); }
};
/// Pages stay at `where` and are mapped, rather than migrated, for other processors.
struct preferred_location {
  static constexpr cudaMemoryAdvise set = cudaMemAdviseSetPreferredLocation;
  static constexpr cudaMemoryAdvise unset = cudaMemAdviseUnsetPreferredLocation;
  managed_location where;
  [[nodiscard]] constexpr cudaMemLocation location() const noexcept { return where.get(); }
};
/// `by` keeps a mapping to the pages wherever they live, so its accesses do not fault.
struct accessed_by {
  static constexpr cudaMemoryAdvise set = cudaMemAdviseSetAccessedBy;
  static constexpr cudaMemoryAdvise unset = cudaMemAdviseUnsetAccessedBy;
  managed_location by;
  [[nodiscard]] constexpr cudaMemLocation location() const noexcept { return by.get(); }
};
}  // namespace advice

template <class A>
concept memory_advice = std::same_as<A, advice::read_mostly> || std::same_as<A, advice::preferred_location> ||
    std::same_as<A, advice::accessed_by>;

/// How a new managed allocation is attached (cudaMallocManaged's flags).
enum class managed_attach {
  global,  ///< any stream on any device may access it
  host,    ///< only the host until attached to a stream (cudaStreamAttachMemAsync)
};

/// Which accesses a stream attachment allows (cudaStreamAttachMemAsync's flags).
enum class stream_attach {
  single,  ///< only work on the attached stream (and the host once that stream is idle)
  host,    ///< only the host
  global,  ///< any stream
};

namespace detail {

/// cudaMemAdvise, refused while a umsync capture refuses unsafe calls (it would invalidate it).
template <memory_advice Advice>
void apply_advice(void const* memory, std::size_t bytes, Advice const& given, bool set,
                  std::source_location const& where)
{
  if (bytes == 0) {
    return;
  }
  check_not_capturing("cudaMemAdvise", where);
  check(cudaMemAdvise(memory, bytes, set ? Advice::set : Advice::unset, given.location()), "cudaMemAdvise", where);
}

/// True for memory the protocol (memory_range.hpp) calls managed.
template <class Memory>
concept managed_memory = memory_range<Memory const> && memory_kind_of<Memory const>
== memory_kind::managed;

template <class Memory>
constexpr void require_managed() noexcept
{
  static_assert(managed_memory<Memory>,
                "umsync: memory advice and prefetch apply to managed memory only (managed_buffer, managed_span, or "
                "a type whose umsync_memory says managed); device, pool and pinned memory never migrate, so there "
                "is nothing to advise");
}

template <class Stream>
void prefetch_range(void const* memory, std::size_t bytes, managed_location to, Stream const& stream,
                    std::source_location const& where)
{
  forbid_in_capture<capture_unsafe::prefetch, Stream>();
  if (bytes == 0) {
    return;
  }
  check_not_capturing(stream.get(), "cudaMemPrefetchAsync", where);
  check(cudaMemPrefetchAsync(memory, bytes, to.get(), 0, stream.get()), "cudaMemPrefetchAsync", where);
}

template <class Value>
Value range_attribute(void const* memory, std::size_t bytes, cudaMemRangeAttribute attribute,
                      std::source_location const& where)
{
  Value value{};
  cudaError_t const status = cudaMemRangeGetAttribute(&value, sizeof value, attribute, memory, bytes);
  if (status != cudaSuccess) [[unlikely]] {  // the call's text is composed only for the error
    check(status, compose<64>("cudaMemRangeGetAttribute(attribute ", static_cast<int>(attribute), ")"), where);
  }
  return value;
}

/// A location from a (type, id) attribute pair; nullopt when the pages disagree or have none.
inline std::optional<managed_location> range_location(void const* memory, std::size_t bytes,
                                                      cudaMemRangeAttribute type_attribute,
                                                      cudaMemRangeAttribute id_attribute,
                                                      std::source_location const& where)
{
  if (bytes == 0) {
    return std::nullopt;
  }
  auto const type = range_attribute<cudaMemLocationType>(memory, bytes, type_attribute, where);
  if (type == cudaMemLocationTypeHost) {
    return managed_location::host();
  }
  if (type == cudaMemLocationTypeDevice) {
    return managed_location::device(range_attribute<int>(memory, bytes, id_attribute, where));
  }
  return std::nullopt;
}

}  // namespace detail

/// Gives `given` advice for all of `memory`, managed memory (a managed_buffer, a managed_span
/// or any type whose umsync_memory says managed; cudaMemAdvise: applies at once, takes no
/// stream). Any other memory does not compile.
template <class Memory, memory_advice Advice>
void advise(Memory const& memory, Advice const& given, std::source_location where = std::source_location::current())
{
  detail::require_managed<Memory>();
  if constexpr (detail::managed_memory<Memory>) {
    auto const span = memory_of(memory);
    detail::apply_advice(span.data(), span.size_bytes(), given, true, where);
  }
}

/// Removes `given` advice from all of `memory`.
template <class Memory, memory_advice Advice>
void unadvise(Memory const& memory, Advice const& given, std::source_location where = std::source_location::current())
{
  detail::require_managed<Memory>();
  if constexpr (detail::managed_memory<Memory>) {
    auto const span = memory_of(memory);
    detail::apply_advice(span.data(), span.size_bytes(), given, false, where);
  }
}

/// advise(), for managed memory that work on `stream` is about to use: refused at compile time
/// on a capturing_stream, and at run time (capture_error) on a view of a capturing stream.
template <stream_handle Stream, class Memory, memory_advice Advice>
void advise_for(Stream const& stream, Memory const& memory, Advice const& given,
                std::source_location where = std::source_location::current())
{
  forbid_in_capture<capture_unsafe::advise, Stream>();
  check_not_capturing(stream.get(), "cudaMemAdvise", where);
  advise(memory, given, where);
}

/// Migrates all of `memory`, managed memory, to `to` in stream order (cudaMemPrefetchAsync).
/// Refused on a capturing stream (at compile time for a capturing_stream).
template <class Memory, stream_handle Stream>
void prefetch(Memory const& memory, managed_location to, Stream const& stream,
              std::source_location where = std::source_location::current())
{
  detail::require_managed<Memory>();
  if constexpr (detail::managed_memory<Memory>) {
    auto const span = memory_of(memory);
    detail::prefetch_range(span.data(), span.size_bytes(), to, stream, where);
  }
}

UMSYNC_NAMESPACE_END
