// umsync/detail/returned_string.hpp: the std::string that umsync's describing functions return
// (device_probe::reason(), managed_location::describe(), allocation_token::to_text(),
// graph_update_error::describe(), the phase plans' describe()), without <string> in umsync's
// headers: each is a function template whose String defaults to std::string, so <string> is
// needed only where one is called (what that saves: docs/compile-cost.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>

#include <concepts>
#include <iosfwd>  // declares std::string, the default String; <string>, where the call is, defines it

UMSYNC_NAMESPACE_BEGIN
namespace detail {

template <class T>
// clang-format off
concept complete_type = requires { sizeof(T); };
// clang-format on

/// Appends each of `parts` (see message_part) to `text`, a std::string or anything with
/// append(char const*, size_t).
template <class String, message_part... Parts>
void append_to_string(String& text, Parts const&... parts)
{
  auto const append_one = [&text](auto const& part) {
    if constexpr (std::convertible_to<decltype(part), text_view>) {
      text_view const characters(part);
      text.append(characters.data(), characters.size());
    } else {  // a number, a character, a pointer or a location, spelled as messages spell it
      fixed_text<64> const spelled = compose<64>(part);
      text.append(spelled.data(), spelled.size());
    }
  };
  (append_one(parts), ...);
}

/// A String that `write(text)` filled in, once String is defined: otherwise the one error
/// below, naming the rule, instead of an incomplete type's (docs/diagnostics.md).
template <class String, class Write>
[[nodiscard]] auto string_from(Write&& write)
{
  if constexpr (!complete_type<String>) {
    static_assert(dependent_false<String>,
                  "umsync: this function returns a std::string; #include <string> where it is called (umsync's "
                  "headers leave <string> out, docs/compile-cost.md)");
    return fixed_text<8>();  // has c_str(), size(), ...: the caller's use of the result adds no error
  } else {
    String text;
    write(text);
    return text;
  }
}

/// A String of `parts`, in order.
template <class String, message_part... Parts>
[[nodiscard]] auto returned_string(Parts const&... parts)
{
  return string_from<String>([&](auto& text) { append_to_string(text, parts...); });
}

}  // namespace detail
UMSYNC_NAMESPACE_END
