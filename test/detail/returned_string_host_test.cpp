// Tests of umsync/detail/returned_string.hpp: a describing function's std::string, composed from
// message parts, and the same for any String with append(char const*, size_t).
#include <umsync/detail/returned_string.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <random>
#include <string>
#include <type_traits>

namespace detail = umsync::detail;

namespace {

// A String that is not std::string: the functions ask only for append(data, size).
struct appended_text {
  std::string characters;
  int appends = 0;
  void append(char const* data, std::size_t size)
  {
    characters.append(data, size);
    ++appends;
  }
};

}  // namespace

TEST_CASE("returned_string spells text, numbers and characters as messages do")
{
  std::mt19937 random(std::random_device{}());
  int const negative = -static_cast<int>(random() % 100000) - 1;
  unsigned long long const large = (static_cast<unsigned long long>(random()) << 32) | random();
  std::string const owned = "owned " + std::to_string(random() % 1000);
  auto const text = detail::returned_string<std::string>("a ", negative, ' ', large, " ", owned, ", ", true);
  static_assert(std::is_same_v<decltype(text), std::string const>);
  CHECK(text == "a " + std::to_string(negative) + " " + std::to_string(large) + " " + owned + ", true");
}

TEST_CASE("string_from hands the writer an empty String and returns what it wrote")
{
  std::mt19937 random(std::random_device{}());
  std::size_t const count = 300 + random() % 300;  // beyond the fixed capacity of a message part
  std::string const text = detail::string_from<std::string>([&](std::string& out) {
    CHECK(out.empty());
    for (std::size_t i = 0; i < count; ++i) {
      detail::append_to_string(out, i, ';');
    }
  });
  std::string expected;
  for (std::size_t i = 0; i < count; ++i) {
    expected += std::to_string(i) + ";";
  }
  CHECK(text == expected);
}

TEST_CASE("any String with append(data, size) takes the parts, one append each")
{
  appended_text const text = detail::returned_string<appended_text>("device ", 7, " of ", 8u);
  CHECK(text.characters == "device 7 of 8");
  CHECK(text.appends == 4);
}
