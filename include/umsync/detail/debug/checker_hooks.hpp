// umsync/detail/debug/checker_hooks.hpp: what umsync's types tell the UMSYNC_DEBUG ordering
// checker (ordering_checker.hpp): every access, record, wait, host wait and destruction.
//
// In release builds each hook is empty and this header includes nothing of the checker, so a
// release translation unit pays neither run time nor compile time for it (the checker needs
// <map> and <mutex>, which cost more to compile than the rest of umsync's base headers).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/access.hpp>

#include <source_location>

#if defined(UMSYNC_DEBUG)
#  include <umsync/detail/debug/ordering_checker.hpp>
#endif

UMSYNC_NAMESPACE_BEGIN
namespace detail::debug {

#if defined(UMSYNC_DEBUG)

inline void note_access(void const* key, void const* stream, access kind, std::source_location const& where)
{
  ordering_checker::instance().on_access(key, stream, kind, where);
}
inline void note_record(void const* event, void const* stream)
{
  ordering_checker::instance().on_record(event, stream);
}
inline void note_wait(void const* stream, void const* event) { ordering_checker::instance().on_wait(stream, event); }
inline void note_host_waited_for_stream(void const* stream)
{
  ordering_checker::instance().on_host_waited_for_stream(stream);
}
inline void note_host_waited_for_event(void const* event)
{
  ordering_checker::instance().on_host_waited_for_event(event);
}
inline void note_stream_destroyed(void const* stream) noexcept
{
  try {
    ordering_checker::instance().forget_stream(stream);
  } catch (...) {  // a destructor's bookkeeping must not throw (allocation failure)
  }
}
inline void note_event_destroyed(void const* event) noexcept
{
  try {
    ordering_checker::instance().forget_event(event);
  } catch (...) {
  }
}

#else

inline void note_access(void const*, void const*, access, std::source_location const&) {}
inline void note_record(void const*, void const*) {}
inline void note_wait(void const*, void const*) {}
inline void note_host_waited_for_stream(void const*) {}
inline void note_host_waited_for_event(void const*) {}
inline void note_stream_destroyed(void const*) noexcept {}
inline void note_event_destroyed(void const*) noexcept {}

#endif

}  // namespace detail::debug
UMSYNC_NAMESPACE_END
