// umsync/phase/access.hpp: how a phase of a step uses a buffer, as types.
//
//   struct forward {};  struct weights {};  struct activations {};
//   using fwd = umsync::phase<forward, umsync::uses<weights, umsync::device_read>,
//                                      umsync::uses<activations, umsync::device_read_write>>;
//
// Phases and buffers are named by tag types the user picks, and each access is a type, so the
// advice a phase needs and the constness of its views are known at compile time.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <concepts>
#include <cstddef>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

/// Where a phase touches a buffer.
enum class phase_side { none, device, host };

/// The device reads the buffer; it is never written in the phase.
struct device_read {
  static constexpr bool writes = false;
  static constexpr phase_side side = phase_side::device;
  static constexpr char const* name = "device_read";
};
/// The device reads and writes the buffer.
struct device_read_write {
  static constexpr bool writes = true;
  static constexpr phase_side side = phase_side::device;
  static constexpr char const* name = "device_read_write";
};
/// The host reads the buffer (a checkpoint, a log).
struct host_read {
  static constexpr bool writes = false;
  static constexpr phase_side side = phase_side::host;
  static constexpr char const* name = "host_read";
};
/// The host reads and writes the buffer.
struct host_read_write {
  static constexpr bool writes = true;
  static constexpr phase_side side = phase_side::host;
  static constexpr char const* name = "host_read_write";
};

template <class A>
concept buffer_access = std::same_as<A, device_read> || std::same_as<A, device_read_write> ||
    std::same_as<A, host_read> || std::same_as<A, host_read_write>;

/// A phase's access to the buffer named by the tag `Buffer`.
template <class Buffer, buffer_access Access>
struct uses {
  using buffer = Buffer;
  using access = Access;
};

namespace detail::phases {

/// What a phase that does not name a buffer does with it: nothing.
struct no_access {
  static constexpr bool writes = false;
  static constexpr phase_side side = phase_side::none;
  static constexpr char const* name = "unused";
};

template <class Buffer, class... Uses>
struct access_of {
  using type = no_access;
};
template <class Buffer, class First, class... Rest>
struct access_of<Buffer, First, Rest...> {
  using type = std::conditional_t<std::is_same_v<typename First::buffer, Buffer>, typename First::access,
                                  typename access_of<Buffer, Rest...>::type>;
};

template <class Buffer, class... Uses>
inline constexpr std::size_t count_uses = (std::size_t{0} + ... +
                                           (std::is_same_v<typename Uses::buffer, Buffer> ? 1 : 0));

template <class T>
// clang-format off
concept has_name = requires {
  { T::name } -> std::convertible_to<char const*>;
};
// clang-format on

/// A tag's name for plans and messages: its `static constexpr char const* name`, else the type's
/// spelling. Views static storage (the name, or this function's __PRETTY_FUNCTION__), so it
/// stays valid; phase_plan.hpp's name_of copies it into a std::string for the plan's text.
template <class T>
text_view name_text_of() noexcept
{
  if constexpr (has_name<T>) {
    return text_view(static_cast<char const*>(T::name));
  } else {
    text_view const function = __PRETTY_FUNCTION__;  // "... [with T = forward; ...]"
    std::size_t const start = function.find("T = ");
    if (start == text_view::npos) {
      return function;
    }
    std::size_t end = start;  // the first ';' or ']' after the type, or the end
    while (end < function.size() && function[end] != ';' && function[end] != ']') {
      ++end;
    }
    text_view name = function.substr(start + 4, end - start - 4);
    // Anonymous namespaces read "{anonymous}::" (g++) or, after nvcc's front end, "_GLOBAL__N__<id>::".
    constexpr text_view anonymous[] = {"{anonymous}::", "(anonymous namespace)::", "_GLOBAL__N_"};
    for (text_view const prefix : anonymous) {
      if (name.starts_with(prefix)) {
        std::size_t const scope = name.find("::");
        name.remove_prefix(scope == text_view::npos ? prefix.size() : scope + 2);
      }
    }
    return name;
  }
}

}  // namespace detail::phases

/// A phase named by the tag `Name` and the buffers it uses, each declared once.
template <class Name, class... Uses>
struct phase {
  using name = Name;
  static constexpr std::size_t use_count = sizeof...(Uses);
  static_assert(((detail::phases::count_uses<typename Uses::buffer, Uses...> == 1) && ...),
                "umsync: a phase declares each buffer's access once");

  template <class Buffer>
  using access_to = typename detail::phases::access_of<Buffer, Uses...>::type;

  /// Calls f.template operator()<Buffer, Access>() for each declared use, in order.
  template <class F>
  static void for_each_use(F&& f)
  {
    (f.template operator()<typename Uses::buffer, typename Uses::access>(), ...);
  }
};

UMSYNC_NAMESPACE_END
