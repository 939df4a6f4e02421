// umsync/phase/phase_plan.hpp: the advice and prefetch plan derived from declared phases.
//
//   using plan = umsync::phase_plan<fwd, bwd, opt, checkpoint>;
//   static_assert(plan::read_mostly_in<forward, weights>);
//   std::cout << plan::describe();
//
// The rules, all compile-time:
// - read-mostly is in force for a buffer in a phase that uses it without writing it, and is
//   removed before a phase that writes it (writing read-mostly pages collapses every copy:
//   8,712 ms against 0.5 ms for reading 256 MiB on the H200);
// - a phase prefetches each buffer it uses to where the access runs (device or host);
// - a buffer that every phase uses on one side gets that side as preferred location, once;
//   a buffer used on both sides gets none (it would pin pages on the wrong side half the time).
// Buffers a phase does not name keep whatever advice they had.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/error.hpp>
#include <umsync/phase/access.hpp>

#include <cstddef>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN

namespace detail::phases {

template <class Name, class... Phases>
struct phase_named {
  using type = void;
};
template <class Name, class First, class... Rest>
struct phase_named<Name, First, Rest...> {
  using type =
      std::conditional_t<std::is_same_v<typename First::name, Name>, First, typename phase_named<Name, Rest...>::type>;
};

template <class Name, class... Phases>
inline constexpr std::size_t count_phases = (std::size_t{0} + ... +
                                             (std::is_same_v<typename Phases::name, Name> ? 1 : 0));

inline char const* side_name(phase_side side) noexcept
{
  return side == phase_side::device ? "device" : side == phase_side::host ? "host" : "none";
}

}  // namespace detail::phases

template <class... Phases>
struct phase_plan {
  static_assert(sizeof...(Phases) > 0, "umsync: a phase plan declares at least one phase");
  static_assert(((detail::phases::count_phases<typename Phases::name, Phases...> == 1) && ...),
                "umsync: each phase of a plan has its own name tag");

  /// True when the plan declares a phase named `Name`.
  template <class Name>
  static constexpr bool declares_phase = detail::phases::count_phases<Name, Phases...> == 1;

  /// The phase type named `Name` (void when not declared).
  template <class Name>
  using phase_t = typename detail::phases::phase_named<Name, Phases...>::type;

  /// The access phase `Name` declares to `Buffer` (detail::phases::no_access when none).
  template <class Name, class Buffer>
  using access_t = typename phase_t<Name>::template access_to<Buffer>;

  template <class Name, class Buffer>
  static constexpr bool used_in = !std::is_same_v<access_t<Name, Buffer>, detail::phases::no_access>;

  template <class Name, class Buffer>
  static constexpr bool writes = access_t<Name, Buffer>::writes;

  /// True when some phase of the plan uses `Buffer`.
  template <class Buffer>
  static constexpr bool uses_anywhere = (used_in<typename Phases::name, Buffer> || ...);

  /// Read-mostly in force during phase `Name`: used and not written there.
  template <class Name, class Buffer>
  static constexpr bool read_mostly_in = used_in<Name, Buffer> && !writes<Name, Buffer>;

  /// Where phase `Name` prefetches `Buffer` (phase_side::none: it leaves it where it is).
  template <class Name, class Buffer>
  static constexpr phase_side prefetch_to = access_t<Name, Buffer>::side;

  /// The side every phase that uses `Buffer` runs on, or phase_side::none when they differ.
  template <class Buffer>
  static constexpr phase_side preferred_side = []() {
    bool device = false;
    bool host = false;
    ((device = device || prefetch_to<typename Phases::name, Buffer> == phase_side::device), ...);
    ((host = host || prefetch_to<typename Phases::name, Buffer> == phase_side::host), ...);
    return device == host ? phase_side::none : device ? phase_side::device : phase_side::host;
  }();

  /// The plan in words, one line per decision: preferred locations, then per phase what is
  /// advised and where each buffer is prefetched. `device` names the device in the text. A
  /// std::string: needs <string> where it is called (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] static auto describe(detail::text_view device = "device")
  {
    return detail::string_from<String>([device](auto& text) { write_description(text, device); });
  }

 private:
  template <class String>
  static void write_description(String& text, detail::text_view device)
  {
    using detail::text_view;
    detail::append_to_string(text, "phase plan (", sizeof...(Phases), " phases)\npreferred location, set once:\n");
    auto const place = [device](phase_side side) { return side == phase_side::device ? device : text_view("host"); };
    // Each buffer once, at its first use; names view static storage (name_text_of).
    constexpr std::size_t uses = (std::size_t{0} + ... + Phases::use_count);
    text_view seen[uses > 0 ? uses : 1];
    std::size_t seen_count = 0;
    (Phases::for_each_use([&]<class Buffer, class Access>() {
       text_view const name = detail::phases::name_text_of<Buffer>();
       for (std::size_t i = 0; i < seen_count; ++i) {
         if (seen[i] == name) {
           return;
         }
       }
       seen[seen_count++] = name;
       phase_side const side = preferred_side<Buffer>;
       detail::append_to_string(text, "  ", name, ": ",
                                side == phase_side::none ? text_view("none (used on device and host)") : place(side),
                                "\n");
     }),
     ...);
    (describe_phase<Phases>(text, place), ...);
  }

  template <class Phase, class String, class Place>
  static void describe_phase(String& text, Place const& place)
  {
    using name = typename Phase::name;
    detail::append_to_string(text, "phase ", detail::phases::name_text_of<name>(), ":\n");
    Phase::for_each_use([&]<class Buffer, class Access>() {
      detail::append_to_string(text, "  ", detail::phases::name_text_of<Buffer>(), " (", Access::name,
                               "): read-mostly ", read_mostly_in<name, Buffer> ? "on" : "off", ", prefetch to ",
                               place(Access::side), "\n");
    });
  }
};

UMSYNC_NAMESPACE_END
