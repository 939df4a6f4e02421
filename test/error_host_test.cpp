// Tests of umsync/error.hpp (host only).
#include <doctest/doctest.h>
#include <umsync/error.hpp>

#include <cstdint>
#include <random>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

TEST_CASE("check throws cuda_error naming the status, the call and the caller's line")
{
  unsigned const line = std::source_location::current().line() + 2;
  try {
    umsync::check(cudaErrorInvalidValue, "cudaSomething(42)");
    FAIL("check did not throw");
  } catch (umsync::cuda_error const& e) {
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK(std::string(e.name()) == "cudaErrorInvalidValue");
    CHECK(std::string_view(e.call()) == "cudaSomething(42)");
    CHECK(e.where().line() == line);
    std::string const what = e.what();
    CHECK(what.find("cudaSomething(42)") != std::string::npos);
    CHECK(what.find("cudaErrorInvalidValue") != std::string::npos);
    CHECK(what.find("error_host_test.cpp:" + std::to_string(line)) != std::string::npos);
  }
}

TEST_CASE("check passes cudaSuccess through") { CHECK_NOTHROW(umsync::check(cudaSuccess, "cudaNothing")); }

TEST_CASE("UMSYNC_CUDA_CHECK takes the call's text")
{
  auto fails = [] { return cudaErrorMemoryAllocation; };
  try {
    UMSYNC_CUDA_CHECK(fails());
    FAIL("no throw");
  } catch (umsync::cuda_error const& e) {
    CHECK(std::string_view(e.call()) == "fails()");
    CHECK(e.code() == cudaErrorMemoryAllocation);
  }
}

TEST_CASE("every umsync exception is a std::exception, bad_alloc a std::bad_alloc")
{
  CHECK_THROWS_AS(umsync::check(cudaErrorInvalidValue, "x"), std::exception);
  CHECK_THROWS_AS(throw umsync::bad_alloc(64, "test pool"), std::bad_alloc);
  CHECK_THROWS_AS(throw umsync::usage_error("x"), std::exception);
  CHECK_THROWS_AS(throw umsync::ordering_error({}, {}), std::exception);
  // Not the <stdexcept> types (error.hpp leaves that header out, docs/compile-cost.md).
  static_assert(!std::is_base_of_v<std::runtime_error, umsync::cuda_error>);
  static_assert(!std::is_base_of_v<std::logic_error, umsync::usage_error>);
}

namespace {
/// Throws `e`, catches it as umsync::error and returns the message.
template <class Exception>
std::string caught_as_umsync_error(Exception const& e)
{
  try {
    throw e;
  } catch (umsync::error const& caught) {
    return caught.what();
  }
  return {};
}
}  // namespace

TEST_CASE("every umsync exception is a umsync::error, on the standard base that fits")
{
  CHECK_THROWS_AS(umsync::check(cudaErrorInvalidValue, "x"), umsync::error);
  CHECK_THROWS_AS(throw umsync::bad_alloc(64, "test pool"), umsync::error);
  CHECK_THROWS_AS(throw umsync::usage_error("x"), umsync::error);
  CHECK_THROWS_AS(throw umsync::length_error("x"), umsync::length_error);
  CHECK_THROWS_AS(throw umsync::out_of_range("x"), umsync::out_of_range);
  CHECK_THROWS_AS(throw umsync::invalid_argument("x"), umsync::invalid_argument);
  CHECK_THROWS_AS(throw umsync::ordering_error({}, {}), umsync::usage_error);
  // what() through umsync::error and through the standard base is the same text.
  umsync::length_error const e("copy of 8 elements into 4");
  CHECK(std::string(static_cast<umsync::error const&>(e).what()) ==
        std::string(static_cast<std::exception const&>(e).what()));
}

TEST_CASE("each message starts with exactly one \"umsync: \", whether or not the thrower wrote one")
{
  auto const prefix_count = [](std::string const& what) {
    std::size_t count = 0;
    for (std::size_t at = what.find("umsync: "); at != std::string::npos; at = what.find("umsync: ", at + 1)) {
      ++count;
    }
    return count;
  };
  for (std::string const& what :
       {caught_as_umsync_error(umsync::usage_error("umsync: umsync: doubled by a caller")),
        caught_as_umsync_error(umsync::usage_error("plain")), caught_as_umsync_error(umsync::length_error("x")),
        caught_as_umsync_error(umsync::out_of_range("umsync: x")),
        caught_as_umsync_error(umsync::invalid_argument("x")),
        caught_as_umsync_error(umsync::cuda_error(cudaErrorInvalidValue, "cudaX")),
        caught_as_umsync_error(umsync::bad_alloc(1, "umsync: pool"))}) {
    CHECK(what.starts_with("umsync: "));
    CHECK(prefix_count(what) == 1);
  }
}

TEST_CASE("bad_alloc says how much was asked for, from what, and where")
{
  unsigned const line = std::source_location::current().line() + 1;
  umsync::bad_alloc const e(1 << 20, "pool 'activations'", "reserved 0 B, used 0 B");
  std::string const what = e.what();
  CHECK(e.requested_bytes() == (1U << 20));
  CHECK(what.find("1048576 bytes") != std::string::npos);
  CHECK(what.find("pool 'activations'") != std::string::npos);
  CHECK(what.find("reserved 0 B, used 0 B") != std::string::npos);
  CHECK(e.where().line() == line);
}

namespace {
int handler_calls = 0;
cudaError_t handler_status = cudaSuccess;
void counting_handler(umsync::error const& e) noexcept
{
  ++handler_calls;
  auto const* failed_call = dynamic_cast<umsync::cuda_error const*>(&e);
  handler_status = failed_call != nullptr ? failed_call->code() : cudaErrorUnknown;
}
}  // namespace

TEST_CASE("failures in destructors go to the replaceable handler, never thrown")
{
  handler_calls = 0;
  auto const previous = umsync::set_destructor_error_handler(&counting_handler);
  umsync::detail::report_in_destructor(cudaErrorInvalidResourceHandle, "cudaStreamDestroy");
  umsync::detail::report_in_destructor(cudaSuccess, "cudaStreamDestroy");
  CHECK(handler_calls == 1);
  CHECK(handler_status == cudaErrorInvalidResourceHandle);
  bool const returned_ours = umsync::set_destructor_error_handler(previous) == &counting_handler;
  CHECK(returned_ours);
  // nullptr restores the default printer rather than leaving no handler.
  umsync::set_destructor_error_handler(nullptr);
  bool const has_default = umsync::set_destructor_error_handler(previous) != nullptr;
  CHECK(has_default);
}

TEST_CASE("a message longer than its 1 KiB storage is cut and ends in \"...\"; composing never throws")
{
  std::string const long_text(4096, 'x');
  static_assert(noexcept(umsync::usage_error(long_text)));
  umsync::usage_error const e(long_text, " and more");
  std::string const what = e.what();
  CHECK(what.size() == umsync::detail::message_capacity - 1);
  CHECK(what.starts_with("umsync: xxx"));
  CHECK(what.ends_with("x..."));
}

// The parts messages are composed of (detail::compose, detail::fixed_text, detail::text_view).
namespace detail = umsync::detail;

namespace {
std::string as_string(detail::text_view text) { return {text.data(), text.size()}; }
enum class small_enum : std::uint8_t { seven = 7 };
}  // namespace

static_assert(detail::text_view("abc").size() == 3);
static_assert(detail::text_view("abcdef").substr(2, 3) == "cde");
static_assert(detail::text_view("abcdef").substr(4) == "ef");
static_assert(detail::text_view("abc").substr(9).empty());
static_assert(detail::text_view("a::b::c").find("::") == 1);
static_assert(detail::text_view("abc").find("x") == detail::text_view::npos);
static_assert(detail::text_view("a]b]").rfind(']') == 3);
static_assert(detail::text_view("umsync: x").starts_with("umsync: "));
static_assert(detail::text_view("x_pool").ends_with("pool") && !detail::text_view("x").ends_with("pool"));
static_assert(detail::text_view(nullptr).empty());
static_assert(detail::text_like<std::string> && detail::text_like<std::string_view> &&
              detail::text_like<detail::fixed_text<16>> && !detail::text_like<int>);
static_assert(detail::message_part<std::string> && detail::message_part<char const*> && detail::message_part<int> &&
              detail::message_part<void*> && detail::message_part<std::source_location> &&
              !detail::message_part<std::random_device>);

TEST_CASE("compose writes text, characters, numbers, pointers and locations in order")
{
  std::mt19937_64 random{std::random_device{}()};
  auto const unsigned_value = static_cast<std::uint64_t>(random());
  auto const signed_value = -static_cast<long long>(random() >> 2) - 1;
  std::string const owned = "owned-" + std::to_string(random() % 1000);
  auto const where = std::source_location::current();
  auto const text = detail::compose<512>("u=", unsigned_value, " s=", signed_value, ' ', owned, " b=", true,
                                         " e=", small_enum::seven, " at ", where);
  std::string const expected = "u=" + std::to_string(unsigned_value) + " s=" + std::to_string(signed_value) + " " +
                               owned + " b=true e=7 at " + where.file_name() + ":" + std::to_string(where.line());
  CHECK(as_string(text.view()) == expected);
  CHECK(std::string(text.c_str()) == expected);  // terminated
  CHECK_FALSE(text.truncated());

  int object = 0;
  char expected_pointer[32];
  std::snprintf(expected_pointer, sizeof expected_pointer, "%p", static_cast<void*>(&object));
  CHECK(as_string(detail::compose<64>(&object).view()) == expected_pointer);
  // A signed char is a number, not a character (c10::DeviceIndex is one).
  CHECK(as_string(detail::compose<16>(static_cast<signed char>(-3)).view()) == "-3");
}

TEST_CASE("text that does not fit is cut, ends in \"...\", and is still terminated")
{
  std::mt19937 random{std::random_device{}()};
  std::size_t const length = 100 + random() % 400;
  std::string const long_text(length, static_cast<char>('a' + random() % 26));
  auto const text = detail::compose<64>(long_text, " tail");
  CHECK(text.truncated());
  CHECK(text.size() == 63);
  std::string const written = text.c_str();
  CHECK(written.size() == 63);
  CHECK(written.ends_with("..."));
  CHECK(written.substr(0, 60) == long_text.substr(0, 60));

  detail::fixed_text<64> exact;
  exact.append(std::string(63, 'x'));
  CHECK_FALSE(exact.truncated());
  CHECK(std::string(exact.c_str()) == std::string(63, 'x'));
}
