// umsync/memory/detail/memory_argument.hpp: the rules memory meets where it becomes a raw pointer.
//
// launch (launch.hpp) and library_call (library_call.hpp) both hand memory to code that only
// takes raw pointers: a kernel, or a library (cuBLAS, CUB, NCCL-like C APIs) called with the
// raw stream. Both ask the memory protocol (memory_range.hpp) for the argument's span, and the
// same rules decide, once, here:
//
//   - memory bound to tag A is used on streams tagged A only;
//   - pageable host memory is refused (the queued work reads it later, on the device);
//   - read-only memory goes to a T const* parameter only;
//   - memory of T goes to T* or T const*, never reinterpreted (a library's void* or void const*
//     parameter takes any memory's bytes; a kernel's does not).
//
// A rule that breaks is a static_assert whose message names it; the receiver (a kernel, or a
// library call's callable) is named where the wording differs. UMSYNC_DEBUG builds then check
// the memory's kind at run time and note the access with the ordering checker: a read when the
// parameter is T const* (or the memory is const), a write otherwise.
//
// Internal (memory/detail/): the rules are the memory protocol's, so they live in memory/'s layer.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/memory/detail/memory_kind_check.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/stream_view.hpp>

#include <cstdlib>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// Who receives memory as a raw pointer: named in the rules whose wording differs.
enum class pointer_receiver { kernel, library_call };

template <class T>
inline constexpr bool is_pointer_to_writable = std::is_pointer_v<T> && !std::is_const_v<std::remove_pointer_t<T>>;

/// Stands in for an argument that broke a rule (its static_assert has fired), so that the
/// only error the user sees is the rule's.
template <class Param>
[[noreturn]] Param rejected_argument() noexcept
{
  std::abort();
}

/// The rules memory whose span is `Span` meets as parameter `Param` of `Receiver` on a stream
/// tagged `StreamTag`. A library's void* (or void const*) parameter takes memory of any element:
/// the library reads bytes (cudaMemsetAsync, cublasLtMatmul, cublasGemmEx); a kernel's does not.
template <pointer_receiver Receiver, class StreamTag, class Param, class Span>
struct memory_parameter_rules {
  using element = typename Span::element_type;
  static constexpr bool host_only = Span::kind == memory_kind::pageable_host;
  static constexpr bool foreign = !usable_on_stream<typename Span::bound_tag_type, StreamTag>;
  static constexpr bool writes_read_only = is_pointer_to_writable<Param> && std::is_const_v<element>;
  static constexpr bool untyped_library_pointer = Receiver == pointer_receiver::library_call &&
                                                  std::is_pointer_v<Param> &&
                                                  std::is_void_v<std::remove_pointer_t<Param>>;
  static constexpr bool other_element =
      !untyped_library_pointer &&
      (!std::is_pointer_v<Param> ||
       !std::is_same_v<std::remove_cv_t<std::remove_pointer_t<Param>>, std::remove_const_t<element>>);
  static constexpr bool broken = host_only || foreign || writes_read_only || other_element;
  /// A T const* parameter only reads, whatever the caller could have allowed.
  static constexpr bool read_only = std::is_const_v<element> || !is_pointer_to_writable<Param>;
};

/// States every rule for memory of span `Span` passed as `Param` to `Receiver`; true when none
/// is broken. Only the broken rules' messages are given.
template <pointer_receiver Receiver, class StreamTag, class Param, class Span>
constexpr bool memory_parameter_allowed() noexcept
{
  using rules = memory_parameter_rules<Receiver, StreamTag, Param, Span>;
  if constexpr (Receiver == pointer_receiver::kernel) {
    static_assert(!rules::host_only,
                  "umsync: a kernel cannot read pageable host memory; use pinned, managed or device memory");
  } else {
    static_assert(!rules::host_only,
                  "umsync: a library call cannot take pageable host memory (the work it queues reads it later, on "
                  "the device); use pinned, managed or device memory, or pass a raw host pointer for what the library "
                  "reads during the call (a scalar)");
  }
  static_assert(!rules::foreign, "umsync: memory bound to one stream is used on another stream; cross with "
                                 "umsync::stream_edge::transfer (an event edge) first");
  if constexpr (Receiver == pointer_receiver::kernel) {
    static_assert(!rules::writes_read_only,
                  "umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's "
                  "view) is passed to a kernel parameter that may write it (T*); declare the parameter T const*, "
                  "or pass memory the caller may write");
    static_assert(rules::writes_read_only || !rules::other_element,
                  "umsync: memory is passed to a kernel parameter that is not a pointer to its element type; "
                  "umsync does not reinterpret memory: the parameter must be T* or T const* for memory of T "
                  "(umsync::reinterpret_span views it as another element type)");
  } else {
    static_assert(!rules::writes_read_only,
                  "umsync: read-only memory (a const buffer, a span of const, a shared view or a read-only phase's "
                  "view) is passed to a library call's parameter that may write it (T*); declare the callable's "
                  "parameter T const*, or pass memory the caller may write");
    static_assert(rules::writes_read_only || !rules::other_element,
                  "umsync: memory is passed to a library call's parameter that is not a pointer to its element type; "
                  "umsync does not reinterpret memory: the callable's parameter must be T*, T const* or void* for "
                  "memory of T (umsync::reinterpret_span views it as another element type)");
  }
  return !rules::broken;
}

/// States the rules for an argument that is not memory (`Argument`, as forwarded) passed as
/// `Param` to `Receiver`; true when it converts. nullptr converts to any pointer parameter (it
/// is no memory: nothing to check). NULL or 0 arrives as an integer (NULL is a long), which no
/// pointer parameter takes once forwarded: its message says what to pass instead.
template <pointer_receiver Receiver, class Param, class Argument>
constexpr bool non_memory_argument_allowed() noexcept
{
  constexpr bool converts = std::is_convertible_v<Argument, Param>;
  using value = std::remove_cvref_t<Argument>;
  constexpr bool integer_for_pointer = !converts && std::is_pointer_v<Param> && std::is_integral_v<value> &&
                                       !std::is_same_v<value, bool>;
  if constexpr (Receiver == pointer_receiver::kernel) {
    static_assert(!integer_for_pointer,
                  "umsync: an integer (NULL or 0) is passed to a kernel parameter that is a pointer; pass nullptr for "
                  "no memory, or an empty memory_span");
    static_assert(converts || integer_for_pointer,
                  "umsync: a launch argument does not convert to its kernel parameter; memory must be an umsync "
                  "buffer, a memory_span or a type that answers umsync_memory (memory/memory_range.hpp)");
  } else {
    static_assert(!integer_for_pointer,
                  "umsync: an integer (NULL or 0) is passed to a library call's parameter that is a pointer; pass "
                  "nullptr for no memory, or an empty memory_span");
    static_assert(converts || integer_for_pointer,
                  "umsync: a library_call argument does not convert to its parameter of the callable; memory must be "
                  "an umsync buffer, a memory_span or a type that answers umsync_memory (memory/memory_range.hpp)");
  }
  return converts;
}

/// The pointer `Receiver` gets, as its parameter `Param`, for `argument` (memory) on `stream`,
/// tagged `StreamTag`; `operation` names the call in UMSYNC_DEBUG messages ("umsync::launch").
template <pointer_receiver Receiver, class StreamTag, class Param, class Argument>
Param memory_argument(Argument& argument, cudaStream_t stream, char const* operation, std::source_location const& where)
{
  using span = memory_span_of_t<Argument>;
  if constexpr (!memory_parameter_allowed<Receiver, StreamTag, Param, span>()) {
    return rejected_argument<Param>();
  } else {
    auto const memory = memory_of(argument);
    debug_check_memory_kind(memory, debug::consumer::kernel, operation, where);
    debug::note_access(memory.data(), memory.size_bytes(), stream,
                       memory_parameter_rules<Receiver, StreamTag, Param, span>::read_only ? debug::access::read
                                                                                           : debug::access::write,
                       where);
    return memory.data();
  }
}

/// UMSYNC_DEBUG: a raw pointer into memory umsync allocated (a buffer's data()) passed as
/// `Param` is checked like the buffer, from the pointer to the end of its allocation; other
/// pointers (a host scalar, a library's own memory) pass. Release builds do nothing.
template <class Param, class Argument>
void note_raw_pointer_argument(Argument const& argument, cudaStream_t stream, std::source_location const& where)
{
  using raw = std::remove_cvref_t<Argument>;
  if constexpr (debug_build && std::is_pointer_v<raw> && std::is_pointer_v<Param> &&
                !std::is_function_v<std::remove_pointer_t<raw>>) {
    void const volatile* const address = argument;
    debug::note_pointer_access(const_cast<void const*>(address), stream,
                               is_pointer_to_writable<Param> ? debug::access::write : debug::access::read, where);
  } else {
    static_cast<void>(argument);
    static_cast<void>(stream);
    static_cast<void>(where);
  }
}

}  // namespace detail
UMSYNC_NAMESPACE_END
