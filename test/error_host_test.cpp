// Tests of umsync/error.hpp (host only).
#include <doctest/doctest.h>
#include <umsync/error.hpp>

#include <source_location>
#include <string>

TEST_CASE("check throws cuda_error naming the status, the call and the caller's line")
{
  unsigned const line = std::source_location::current().line() + 2;
  try {
    umsync::check(cudaErrorInvalidValue, "cudaSomething(42)");
    FAIL("check did not throw");
  } catch (umsync::cuda_error const& e) {
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK(std::string(e.name()) == "cudaErrorInvalidValue");
    CHECK(e.call() == "cudaSomething(42)");
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
    CHECK(e.call() == "fails()");
    CHECK(e.code() == cudaErrorMemoryAllocation);
  }
}

TEST_CASE("cuda_error is a std::runtime_error, bad_alloc a std::bad_alloc, usage_error a std::logic_error")
{
  CHECK_THROWS_AS(umsync::check(cudaErrorInvalidValue, "x"), std::runtime_error);
  CHECK_THROWS_AS(throw umsync::bad_alloc(64, "test pool"), std::bad_alloc);
  CHECK_THROWS_AS(throw umsync::usage_error("x"), std::logic_error);
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
  CHECK_THROWS_AS(throw umsync::length_error("x"), std::length_error);
  CHECK_THROWS_AS(throw umsync::out_of_range("x"), std::out_of_range);
  CHECK_THROWS_AS(throw umsync::invalid_argument("x"), std::invalid_argument);
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
